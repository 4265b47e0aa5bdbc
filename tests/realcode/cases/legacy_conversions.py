"""A batching server that moves caches between requests as tuples, and sizes static caches from their shape."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def filled():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    return cache


def export(cache):
    return cache.to_legacy_cache()  # site: conv_to_legacy


def rebuild(legacy):
    return DynamicCache.from_legacy_cache(legacy)  # site: conv_from_legacy


def export_compat(cache):
    return tuple((layer.keys, layer.values) for layer in cache.layers)  # clean: conv_export_layers


def rebuild_compat(legacy):
    cache = DynamicCache()
    for i, (k, v) in enumerate(legacy):  # clean: conv_iter_own_tuple
        cache.update(k, v, i)  # clean: conv_update_plain
    return cache


def capacity(cache):
    return cache.get_max_cache_shape()  # site: conv_max_cache_shape


def static_batch(cache):
    return cache.max_batch_size  # site: conv_max_batch_size


def static_capacity_compat(cache):
    return cache.layers[0].max_cache_len  # clean: conv_layer_capacity


def probe_export():
    assert len(export(filled())) == 2


def probe_rebuild():
    legacy = export_compat(filled())
    assert rebuild(legacy).get_seq_length() == 5


def probe_compat():
    legacy = export_compat(filled())
    assert rebuild_compat(legacy).get_seq_length() == 5


def probe_capacity():
    cache = StaticCache(config=model.config, max_cache_len=16)
    assert capacity(cache) == 16


def probe_batch():
    cache = StaticCache(config=model.config, max_cache_len=16)
    model(prompt, past_key_values=cache, use_cache=True)
    assert static_batch(cache) == 1


def probe_static_compat():
    cache = StaticCache(config=model.config, max_cache_len=16)
    model(prompt, past_key_values=cache, use_cache=True)
    assert static_capacity_compat(cache) == 16
