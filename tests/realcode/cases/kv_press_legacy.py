"""A KV-compression "press" written for the 4.4x cache: it prunes each layer's keys and values after prefill by
reading and reassigning key_cache / value_cache."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20, 22, 25, 27]])


def prefill():
    cache = DynamicCache()
    model(prompt, past_key_values=cache, use_cache=True)
    return cache


def norms(cache, layer):
    keys = cache.key_cache[layer]  # site: press_read_key_cache
    return keys.norm(dim=-1)


def keep_last_keys(cache, n):
    cache.key_cache = [layer.keys[:, :, -n:] for layer in cache.layers]  # site: press_write_key_cache


def keep_last_values(cache, n):
    cache.value_cache = [layer.values[:, :, -n:] for layer in cache.layers]  # site: press_write_value_cache


def keep_last_layers(cache, n):
    for layer in cache.layers:  # clean: press_layers_iter
        layer.keys = layer.keys[:, :, -n:]  # clean: press_layers_keys
        layer.values = layer.values[:, :, -n:]  # clean: press_layers_values


def probe_read():
    cache = prefill()
    assert norms(cache, 0).shape[-1] == 8


def probe_write_keys():
    cache = prefill()
    keep_last_keys(cache, 4)
    assert cache.layers[0].keys.shape[-2] == 4, "press_write_key_cache: the layer still holds 8"  # observe: press_write_key_cache


def probe_write_values():
    cache = prefill()
    keep_last_values(cache, 4)
    assert cache.layers[0].values.shape[-2] == 4, "press_write_value_cache: the layer still holds 8"  # observe: press_write_value_cache


def probe_layers():
    cache = prefill()
    keep_last_layers(cache, 4)
    assert cache.get_seq_length() == 4
