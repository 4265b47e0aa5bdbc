"""Speculative decoding with a reused target cache: the target prefills once and keeps `outputs.past_key_values`;
each round a draft model proposes tokens, the target "verifies" them in a forward it treats as read-only on the
same cache object, then re-runs the accepted tokens (or falls back to one token) on that cache and keeps the
returned one.

Provenance (mechanisms read; this code is written here, not copied):
- sreekarp/Accelerated-LLM-Inference @3e370878feca8656ed056e5138a8fc6139645828 src/decoding/speculative_kv.py
  (`past_target = target_outputs.past_key_values`; "2. Target verification (READ-ONLY)": `verify_outputs =
  target_model(input_ids=proposed, past_key_values=past_target, use_cache=True)`; on acceptance
  `accepted_outputs = target_model(input_ids=accepted, past_key_values=past_target, use_cache=True)` and
  `past_target = accepted_outputs.past_key_values`; else a one-token fallback forward on `past_target`)
Reduced: the loop body's steps are small functions here so each can be probed; greedy acceptance.
"""

import torch
from transformers import AutoModelForCausalLM

target_model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
draft_model = AutoModelForCausalLM.from_pretrained("JackFram/llama-68m")
prompt = torch.tensor([[1, 12, 14, 16, 18, 20]])


def prefill(input_ids):
    with torch.no_grad():
        target_outputs = target_model(input_ids, use_cache=True)
    return target_outputs.past_key_values  # clean: sk_prefill_cache


def propose(generated, draft_steps):
    draft_ids = generated.clone()
    for _ in range(draft_steps):
        draft_outputs = draft_model(draft_ids)
        next_token = torch.argmax(draft_outputs.logits[:, -1, :], dim=-1).unsqueeze(-1)
        draft_ids = torch.cat([draft_ids, next_token], dim=-1)
    return draft_ids[:, generated.shape[1]:]


def verify(proposed, past_target):
    with torch.no_grad():
        verify_outputs = target_model(input_ids=proposed, past_key_values=past_target, use_cache=True)  # site: sk_verify_readonly
    accept_len = 0
    for i in range(proposed.shape[1]):
        if torch.argmax(verify_outputs.logits[:, i, :], dim=-1).item() == proposed[0, i].item():
            accept_len += 1
        else:
            break
    return accept_len


def accept(accepted, past_target):
    with torch.no_grad():
        accepted_outputs = target_model(input_ids=accepted, past_key_values=past_target, use_cache=True)  # clean: sk_accept_forward
    return accepted_outputs.past_key_values


def fallback(generated, past_target):
    with torch.no_grad():
        fallback_outputs = target_model(input_ids=generated[:, -1:], past_key_values=past_target, use_cache=True)  # clean: sk_fallback_forward
    next_token = torch.argmax(fallback_outputs.logits[:, -1, :], dim=-1).unsqueeze(-1)
    return torch.cat([generated, next_token], dim=-1), fallback_outputs.past_key_values


def probe_verify():
    past_target = prefill(prompt)
    proposed = propose(prompt, 3)
    verify(proposed, past_target)
    assert past_target.get_seq_length() == 6, (  # observe: sk_verify_readonly
        f"sk_verify_readonly: the read-only verification left {past_target.get_seq_length() - 6} draft tokens in the target cache")


def probe_accept():
    past_target = accept(propose(prompt, 2), prefill(prompt))
    assert past_target.get_seq_length() == 8


def probe_fallback():
    generated, past_target = fallback(prompt, prefill(prompt[:, :-1]))
    assert generated.shape[1] == 7 and past_target.get_seq_length() == 6
