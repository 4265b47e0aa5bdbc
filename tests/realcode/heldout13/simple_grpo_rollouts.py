"""simple_GRPO's rollout and scoring loop: the policy samples `num_return_sequences` answers per chat-templated
question with one `GenerationConfig` (left padding, `generate(**tip_inputs, generation_config=...)`), the
completions are cut after the prompt length, rewarded, and the per-token log-probabilities of prompt + completion are
computed by plain forwards of the policy and of the reference model (`model(ids).logits[:, :-1, :]` gathered at
`ids[:, 1:]`), the reference server doing the same on the batches it receives.

Provenance (mechanisms read; this code is written here, not copied):
- lsdefine/simple_GRPO @4ab94c64765a33f73a2c285d1285f935fd299ef2
  simple_grpo_v1/grpo_ref_split.py (`AutoModelForCausalLM.from_pretrained(model_path, torch_dtype=torch.bfloat16,
  _attn_implementation="sdpa")`, `gen_model = model`, `generation_config = GenerationConfig(max_new_tokens=512,
  do_sample=True, temperature=0.9, num_return_sequences=num_pre_Q, pad_token_id=tokenizer.pad_token_id)`;
  `gen_answers`: `tokenizer(tip_text, return_tensors="pt", padding=True, padding_side="left",
  add_special_tokens=False)`, `gen_model.generate(**tip_inputs, generation_config=generation_config)` under
  `torch.inference_mode()`, `completion_ids = tip_completion_ids[:, prompt_length:]`; `get_per_token_logps`;
  `gen_logps = get_per_token_logps(model(mids).logits[:, :-1, :], mids[:, 1:])`) and ref_server.py (`logits =
  ref_model(input_ids).logits`, the same gather).
Reduced: no DeepSpeed engine, vLLM, HTTP reference server or math reward; float32 weights, 5 new tokens (not 512), the
generation config also fixing `min_new_tokens` (the oracle's random weights).
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig

model_path = "Qwen/Qwen2.5-7B"
num_pre_Q = 3
tokenizer = AutoTokenizer.from_pretrained(model_path)
model = AutoModelForCausalLM.from_pretrained(model_path, _attn_implementation="sdpa")
ref_model = AutoModelForCausalLM.from_pretrained(model_path, _attn_implementation="sdpa")
gen_model = model
generation_config = GenerationConfig(
    max_new_tokens=5,
    min_new_tokens=5,
    do_sample=True,
    temperature=0.9,
    num_return_sequences=num_pre_Q,
    pad_token_id=tokenizer.pad_token_id,
)
system_prompt = "You are a helpful assistant"


def gen_answers(prompts):
    tip_text = [tokenizer.apply_chat_template([{"role": "system", "content": system_prompt},
                                               {"role": "user", "content": x}], tokenize=False,
                                              add_generation_prompt=True) for x in prompts]
    tip_inputs = tokenizer(tip_text, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False)
    prompt_length = tip_inputs["input_ids"].shape[-1]
    with torch.inference_mode():
        tip_completion_ids = gen_model.generate(**tip_inputs, generation_config=generation_config)  # clean: sg_rollout
    return tip_inputs["input_ids"], tip_completion_ids[:, prompt_length:]


def get_per_token_logps(logits, input_ids):
    per_token_logps = []
    for logits_row, input_ids_row in zip(logits, input_ids):
        log_probs = logits_row.log_softmax(dim=-1)
        per_token_logps.append(torch.gather(log_probs, dim=1, index=input_ids_row.unsqueeze(1)).squeeze(1))
    return torch.stack(per_token_logps)


def score_batch(prompt_ids, completion_ids):
    mids = torch.cat([prompt_ids.repeat_interleave(num_pre_Q, 0), completion_ids], dim=1)
    with torch.inference_mode():
        gen_logps = get_per_token_logps(model(mids).logits[:, :-1, :], mids[:, 1:])  # clean: sg_policy_logps
        ref_logits = ref_model(mids).logits  # clean: sg_ref_logits
    ref_logps = get_per_token_logps(ref_logits[:, :-1, :], mids[:, 1:])
    return gen_logps, ref_logps


def probe_rollout():
    prompt_ids, completion_ids = gen_answers(["natalia sold clips to 48 friends"])
    assert completion_ids.shape == (num_pre_Q, 5)


def probe_scores():
    prompt_ids, completion_ids = gen_answers(["natalia sold clips to 48 friends"])
    gen_logps, ref_logps = score_batch(prompt_ids, completion_ids)
    assert gen_logps.shape == ref_logps.shape == (num_pre_Q, prompt_ids.shape[1] + 4)
