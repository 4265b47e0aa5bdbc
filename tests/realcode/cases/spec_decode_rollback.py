"""Speculative decoding with a draft model: the draft's cache is rolled back to the accepted prefix."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

target = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
draft = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def propose(cache, ids, k):
    tokens = []
    step = ids
    for _ in range(k):
        out = draft(step, past_key_values=cache, use_cache=True)
        nxt = out.logits[:, -1:].argmax(-1)
        tokens.append(nxt)
        step = nxt
    return torch.cat(tokens, dim=-1)


def rollback_positive(cache, accepted_len):
    cache.crop(accepted_len)  # site: spec_crop_positive


def rollback_negative(cache, accepted_len):
    extra = cache.get_seq_length() - accepted_len  # clean: spec_seq_length
    if extra > 0:
        cache.crop(-extra)  # clean: spec_crop_negative


def probe_crop_positive():
    cache = DynamicCache()
    draft(prompt, past_key_values=cache, use_cache=True)
    propose(cache, prompt[:, -1:], 3)
    rollback_positive(cache, 6)
    assert cache.get_seq_length() == 6


def probe_crop_negative():
    cache = DynamicCache()
    draft(prompt, past_key_values=cache, use_cache=True)
    propose(cache, prompt[:, -1:], 3)
    rollback_negative(cache, 6)
    assert cache.get_seq_length() == 6
