"""A trust_remote_code-style model written for transformers 4.4x: its attention asks the cache for the usable
length and its config check reads a class flag."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def kv_seq_len(past_key_values, q_len, layer_idx):
    return q_len + past_key_values.get_usable_length(q_len, layer_idx)  # site: remote_get_usable_length


def seen(past_key_values):
    return past_key_values.seen_tokens  # site: remote_seen_tokens


def supports_cache(m):
    return m._supports_cache_class  # site: remote_supports_cache_class


def supports_cache_compat(m):
    return getattr(m, "_supports_cache_class", True)  # clean: remote_supports_getattr


def filled():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    return cache


def probe_usable_length():
    assert kv_seq_len(filled(), 1, 0) == 6


def probe_seen_tokens():
    assert seen(filled()) == 5


def probe_supports_cache_class():
    assert supports_cache(model)


def probe_compat():
    assert supports_cache_compat(model)
    assert filled().get_seq_length(0) == 5  # clean: remote_seq_len_layer
