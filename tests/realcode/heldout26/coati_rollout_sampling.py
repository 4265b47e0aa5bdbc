"""ColossalAI's RLHF application (hpcaitech/ColossalAI, applications/Chat and ColossalChat, the `coati` package): the
PPO experience maker samples rollouts with its own loop instead of `generate`. Each step builds the inputs with a
per-family `prepare_inputs_fn(input_ids, past=..., **model_kwargs)` (for GPT-2: only the last token and the last
position id once `past` is set, the cache handed back as `past_key_values`), runs the actor, samples, and lets
`update_model_kwargs_fn(outputs, **model_kwargs)` carry the cache on (`model_kwargs["past"] =
outputs["past_key_values"]` when `"past_key_values" in outputs`) and grow the attention mask. The later ColossalChat
`_sample` keeps `past = outputs.past_key_values` the same way (`if "past_key_values" in outputs`), with its own
`update_model_kwargs_fn` storing `model_kwargs["past_key_values"]`.

Provenance (mechanisms read; this code is written here, not copied):
- hpcaitech/ColossalAI @8983d8348c5b075f6977cd16513b543425fcb378 (April 2023)
  applications/Chat/coati/models/generation_utils.py (gpt_prepare_inputs_fn,
  update_model_kwargs_fn, opt_prepare_inputs_fn) and applications/Chat/coati/models/generation.py (sample:
  `model_inputs = prepare_inputs_fn(input_ids, **model_kwargs)`, `model_kwargs = update_model_kwargs_fn(outputs,
  **model_kwargs)`); applications/ColossalChat/coati/models/generation.py
  @20063399b326cbb6e4c416ed8127c088d02f356e (_sample: `if "past_key_values" in outputs: past =
  outputs.past_key_values`, update_model_kwargs_fn).
Reduced: a tiny GPT-2 from a config as the actor; greedy choice instead of multinomial sampling with
top-k/top-p warpers; no distributed all-reduce of finished flags, no critic or reward model.
"""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

actor = GPT2LMHeadModel(GPT2Config(vocab_size=320, n_embd=32, n_layer=2, n_head=4, n_positions=64,
                                   bos_token_id=1, eos_token_id=2)).eval()
PAD = 0


def gpt_prepare_inputs_fn(input_ids, past=None, **kwargs):
    token_type_ids = kwargs.get("token_type_ids", None)
    if past:  # clean: cc_past_truthy
        input_ids = input_ids[:, -1].unsqueeze(-1)
        if token_type_ids is not None:
            token_type_ids = token_type_ids[:, -1].unsqueeze(-1)
    attention_mask = kwargs.get("attention_mask", None)
    position_ids = kwargs.get("position_ids", None)
    if attention_mask is not None and position_ids is None:
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        if past:
            position_ids = position_ids[:, -1].unsqueeze(-1)
    else:
        position_ids = None
    return {"input_ids": input_ids, "past_key_values": past,  # clean: cc_prepare_past
            "use_cache": kwargs.get("use_cache"), "position_ids": position_ids, "attention_mask": attention_mask,
            "token_type_ids": token_type_ids}


def update_model_kwargs_fn(outputs, **model_kwargs):
    if "past_key_values" in outputs:  # clean: cc_past_in_outputs
        model_kwargs["past"] = outputs["past_key_values"]  # clean: cc_outputs_item
    else:
        model_kwargs["past"] = None
    if "attention_mask" in model_kwargs:
        attention_mask = model_kwargs["attention_mask"]
        model_kwargs["attention_mask"] = torch.cat(
            [attention_mask, attention_mask.new_ones((attention_mask.shape[0], 1))], dim=-1)
    return model_kwargs


@torch.no_grad()
def sample(model, input_ids, max_length, prepare_inputs_fn=None, update_model_kwargs_fn=None, **model_kwargs):
    lengths = []
    for _ in range(input_ids.size(1), max_length):
        model_inputs = (prepare_inputs_fn(input_ids, **model_kwargs) if prepare_inputs_fn is not None
                        else {"input_ids": input_ids})
        lengths.append(model_inputs["input_ids"].shape[1])
        outputs = model(**model_inputs)  # clean: cc_actor_step
        next_tokens = outputs["logits"][:, -1, :].argmax(dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        if update_model_kwargs_fn is not None:
            model_kwargs = update_model_kwargs_fn(outputs, **model_kwargs)
    return input_ids, lengths


@torch.no_grad()
def chat_sample(model, input_ids, max_new_tokens):
    past = None
    for _ in range(max_new_tokens):
        model_inputs = {"input_ids": input_ids, "attention_mask": input_ids.ne(PAD)}
        outputs = model(**model_inputs)
        if "past_key_values" in outputs:
            past = outputs.past_key_values  # clean: cc_chat_past
        elif "mems" in outputs:
            past = outputs.mems
        next_tokens = outputs["logits"][:, -1, :].argmax(dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
    return input_ids, past


prompts = torch.tensor([[5, 6, 7, 8]])


def probe_ppo_rollout():
    sequences, lengths = sample(actor, prompts, max_length=8, prepare_inputs_fn=gpt_prepare_inputs_fn,
                                update_model_kwargs_fn=update_model_kwargs_fn,
                                attention_mask=torch.ones_like(prompts), use_cache=True)
    assert sequences.shape == (1, 8)
    assert lengths == [4, 1, 1, 1], f"the rollout re-ran the prompt: {lengths}"


def probe_chat_sample():
    sequences, past = chat_sample(actor, prompts, max_new_tokens=2)
    assert sequences.shape == (1, 6) and past.get_seq_length() == 5
