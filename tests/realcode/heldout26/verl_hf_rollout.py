"""verl (volcengine/verl), an RLHF/GRPO trainer: `HFRollout`, its single-GPU rollout that samples with
Hugging Face `generate` instead of vLLM/SGLang. `_generate_minibatch` builds a `GenerationConfig` from the rollout
mode (greedy, validation sampling or training sampling, `num_return_sequences=1` because the trainer already
repeated the prompts), then calls `self.module.generate(input_ids=idx, attention_mask=..., position_ids=...,
do_sample=..., max_new_tokens=response_length, eos_token_id=..., pad_token_id=..., generation_config=...,
output_scores=False, return_dict_in_generate=True, use_cache=True)` on the left-padded batch, reads
`output.sequences`, pads every row to `prompt_length + response_length`, and extends the position ids and the
attention mask over the response.

Provenance (mechanisms read; this code is written here, not copied):
- volcengine/verl @b178a3cd56f58b2d502255daba591e92833930a7 verl/workers/rollout/hf_rollout.py
  (HFRollout._generate_minibatch), verl/utils/torch_functional.py (get_response_mask).
Reduced: a tiny Llama from a config (no FSDP, no autocast, no TensorDict/DataProto); the batch is two left-padded
prompts with their position ids built as verl's dataset does (`cumsum` of the mask, minus one, clipped at zero).
"""

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

module = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, bos_token_id=1, eos_token_id=2,
                                      pad_token_id=0)).eval()


def get_response_mask(response_id, eos_token, dtype=torch.int64):
    eos_mask = torch.isin(response_id, torch.tensor(eos_token)).int()
    return (eos_mask.cumsum(dim=1) - eos_mask).eq(0).to(dtype)


def generate_minibatch(idx, attention_mask, position_ids, response_length, do_sample=False, eos_token_id=2,
                       pad_token_id=0):
    if not do_sample:
        kwargs = {"do_sample": False, "num_beams": 1}
    else:
        kwargs = {"do_sample": True, "num_beams": 1, "top_p": 1.0, "top_k": 0, "temperature": 1.0,
                  "num_return_sequences": 1}
    generation_config = GenerationConfig(**kwargs)
    prompt_length = idx.size(1)
    module.eval()
    output = module.generate(input_ids=idx, attention_mask=attention_mask, position_ids=position_ids,  # clean: vr_rollout_generate
                             do_sample=do_sample, max_new_tokens=response_length, eos_token_id=eos_token_id,
                             pad_token_id=pad_token_id, generation_config=generation_config, output_scores=False,
                             return_dict_in_generate=True, use_cache=True)
    seq = output.sequences
    delta_length = prompt_length + response_length - seq.shape[1]
    if delta_length > 0:
        seq = torch.cat((seq, torch.full((seq.size(0), delta_length), pad_token_id, dtype=seq.dtype)), dim=1)
    response = seq[:, prompt_length:]
    delta_position_id = torch.arange(1, response.size(1) + 1).unsqueeze(0).repeat(seq.size(0), 1)
    position_ids = torch.cat([position_ids, position_ids[:, -1:] + delta_position_id], dim=-1)
    attention_mask = torch.cat((attention_mask, get_response_mask(response, eos_token_id, attention_mask.dtype)),
                               dim=-1)
    return seq, attention_mask, position_ids


def left_padded_batch():
    idx = torch.tensor([[0, 0, 5, 6, 7], [8, 9, 10, 11, 12]])
    attention_mask = (idx != 0).long()
    position_ids = torch.clip(torch.cumsum(attention_mask, dim=-1) - 1, min=0)
    return idx, attention_mask, position_ids


def probe_greedy_rollout():
    idx, attention_mask, position_ids = left_padded_batch()
    module.generation_config.min_new_tokens = 4
    seq, mask, pos = generate_minibatch(idx, attention_mask, position_ids, response_length=4)
    assert seq.shape == (2, 9) and mask.shape == (2, 9) and pos.shape == (2, 9)
    alone = module.generate(input_ids=idx[1:], attention_mask=attention_mask[1:], do_sample=False,
                            max_new_tokens=4, min_new_tokens=4, pad_token_id=0)
    assert torch.equal(seq[1], alone[0]), "the rollout's tokens differ from the same prompt decoded alone"
