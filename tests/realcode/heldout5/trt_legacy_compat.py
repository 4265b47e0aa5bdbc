"""Test helpers of an inference engine that compares its attention kernels against Hugging Face's: references are
built from per-layer `(key, value)` tuples, so a small compatibility module (added when the tests moved to
transformers 5.x, where the legacy conversions are gone) rebuilds a `DynamicCache` from the tuples with
`update(...)` per layer and exports a `DynamicCache` back to tuples through `cache.layers` (skipping layers not
initialised); the reference forward runs with the rebuilt cache and its returned cache is exported again.

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/TensorRT-LLM @5af040302c02119238fa5ec48aa603e38c3dd877 tests/unittest/trt/attention/hf_dynamic_cache_compat.py
  (`dynamic_cache_from_legacy(past_key_values)`: `cache = DynamicCache()`, `for layer_idx in range(len(
  past_key_values)): key_states, value_states = past_key_values[layer_idx]; cache.update(key_states, value_states,
  layer_idx)`; `dynamic_cache_to_legacy(cache)`: `for layer in cache.layers: if not getattr(layer,
  "is_initialized", False): continue`, `layers.append((layer.keys, layer.values))`, `return tuple(layers)`)
Reduced: the TensorRT engine side is left out; the reference is a tiny causal LM's forward instead of one
attention module.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


def dynamic_cache_from_legacy(past_key_values):
    cache = DynamicCache()  # clean: trt_new_cache
    if past_key_values is None:
        return cache
    for layer_idx in range(len(past_key_values)):
        key_states, value_states = past_key_values[layer_idx]  # clean: trt_tuple_index
        cache.update(key_states, value_states, layer_idx)  # clean: trt_update
    return cache


def dynamic_cache_to_legacy(cache):
    layers = []
    for layer in cache.layers:  # clean: trt_layers_iter
        if not getattr(layer, "is_initialized", False):
            continue
        keys = layer.keys  # clean: trt_layer_keys
        values = layer.values
        if keys is None or values is None:
            continue
        layers.append((keys, values))
    return tuple(layers)


def reference_step(model, past, next_ids):
    cache = dynamic_cache_from_legacy(past)
    with torch.no_grad():
        out = model(next_ids, past_key_values=cache, use_cache=True)  # clean: trt_reference_forward
    return out.logits, dynamic_cache_to_legacy(out.past_key_values)


def probe_roundtrip():
    past = tuple((torch.randn(1, 1, 3, 64), torch.randn(1, 1, 3, 64)) for _ in range(2))
    cache = dynamic_cache_from_legacy(past)
    back = dynamic_cache_to_legacy(cache)
    assert cache.get_seq_length() == 3 and len(back) == 2 and torch.equal(back[1][0], past[1][0])


def probe_reference():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
    past = tuple((torch.randn(1, 1, 3, 64), torch.randn(1, 1, 3, 64)) for _ in range(2))
    logits, present = reference_step(model, past, torch.tensor([[5]]))
    assert logits.shape == (1, 1, 320) and present[0][0].shape == (1, 1, 4, 64)


def probe_empty():
    cache = dynamic_cache_from_legacy(None)
    assert dynamic_cache_to_legacy(cache) == ()
