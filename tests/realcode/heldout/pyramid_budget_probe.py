"""Layer-wise KV budgets (PyramidKV-style): helpers that ask a cache whether it is fresh, and how long it is.

Provenance (mechanisms read; this code is written here, not copied):
- Zefan-Cai/KVCache-Factory pyramidkv/llama_model.py @485af3cb33433f7d8814388d5125c7813e3bc458
  (`past_key_value.get_usable_length(kv_seq_len, self.layer_idx)` in patched attention forwards)
- Zefan-Cai/KVCache-Factory tests/test_generation_state.py @944c50af3685569ca60d53cb779e0c292dd168bf
  (`is_empty_past_key_values`: a cache is empty when its `key_cache` list is)
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
prompt = torch.tensor([[1, 2, 3, 5, 8, 13, 21]])


def is_fresh(past):
    if past is None:
        return True
    return len(getattr(past, "key_cache", [])) == 0  # site: pk_key_cache_probe


def kv_length(past, q_len, layer_idx):
    return q_len + past.get_usable_length(q_len, layer_idx)  # site: pk_usable_length


def kv_length_now(past, q_len, layer_idx):
    return q_len + past.get_seq_length(layer_idx)  # clean: pk_seq_length


def prefill():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    return cache


def probe_fresh():
    assert not is_fresh(prefill()), "pk_key_cache_probe: a filled cache reads as fresh"  # observe: pk_key_cache_probe


def probe_usable_length():
    assert kv_length(prefill(), 1, 0) == 8


def probe_seq_length():
    assert kv_length_now(prefill(), 1, 0) == 8
