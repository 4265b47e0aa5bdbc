"""A sparse-attention (LSH sampling) research model: its own cache class subclasses transformers' `Cache`, the
patched model builds one when the caller passed none, asks it for the usable past length, and the copied 4.3x
`prepare_inputs_for_generation` reads the cache's own counters; the evaluation converts the cache to the legacy
tuples it stores.

Provenance (mechanisms read; this code is written here, not copied):
- dreaming-panda/MagicPiG @8666d535b3bf779a945497ebd467502200bc9631 models/cache.py (MagicCache(Cache) without
  a base `__init__` call: `key_cache`/`value_cache` lists, `seen_tokens`, `__getitem__`, `__iter__`, `update`,
  `get_max_length`, `to_legacy_cache`, `from_legacy_cache`), models/llama.py (`use_legacy_cache = not
  isinstance(past_key_values, Cache)`, then `past_key_values = MagicCache()` and
  `past_key_values_length = past_key_values.get_usable_length(seq_length)`; prepare_inputs_for_generation:
  `cache_length = past_key_values.get_seq_length()`, `past_length = past_key_values.seen_tokens`,
  `max_cache_length = past_key_values.get_max_length()` when the past is a `Cache`)
"""

import torch
from _magic_cache import MagicCache
from transformers import AutoModelForCausalLM, Cache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3.1-8B-Instruct")
prompt = torch.tensor([[1, 2, 4, 8, 16, 32]])


def past_for_forward(past_key_values, seq_length, use_cache=True):
    past_key_values_length = 0
    if use_cache:
        if not isinstance(past_key_values, Cache):
            past_key_values = MagicCache()
        past_key_values_length = past_key_values.get_usable_length(seq_length)  # site: mp_usable_length
    return past_key_values, past_key_values_length


def unprocessed(input_ids, past_key_values, attention_mask=None):
    if isinstance(past_key_values, Cache):
        cache_length = past_key_values.get_seq_length()
        past_length = past_key_values.seen_tokens  # clean: mp_seen_tokens
        max_cache_length = past_key_values.get_max_length()  # clean: mp_max_length
    else:
        cache_length = past_length = past_key_values[0][0].shape[2]
        max_cache_length = None
    if past_length < input_ids.shape[1]:
        input_ids = input_ids[:, past_length:]
    if max_cache_length is not None and cache_length + input_ids.shape[1] > max_cache_length:
        attention_mask = attention_mask[:, -max_cache_length:]
    return input_ids


def filled(layers, length):
    cache = MagicCache()
    for layer_idx in range(layers):
        cache.update(torch.ones(1, 1, length, 64), torch.ones(1, 1, length, 64), layer_idx)
    return cache


def stored_for_eval(cache):
    legacy = cache.to_legacy_cache()  # clean: mp_to_legacy
    return legacy[0][0].shape[2], cache[1][0].shape[2]  # clean: mp_index


def run_with(cache):
    return model(prompt, past_key_values=cache, use_cache=True)  # site: mp_forward_own


def probe_usable():
    _, length = past_for_forward(None, 4)
    assert length == 0


def probe_counters():
    ids = unprocessed(torch.tensor([[1, 2, 3, 4, 5, 6]]), filled(2, 4))
    assert ids.shape[1] == 2


def probe_legacy():
    assert stored_for_eval(filled(2, 3)) == (3, 3)
    assert MagicCache.from_legacy_cache(filled(2, 3).to_legacy_cache()).get_seq_length() == 3


def probe_forward_own():
    cache = MagicCache()
    out = run_with(cache)
    assert out.logits.shape[1] == 6 and cache.get_seq_length() == 6
