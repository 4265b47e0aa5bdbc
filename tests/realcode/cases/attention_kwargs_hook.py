"""A KV-compression library's attention forward hooks (registered with_kwargs): after prefill they prune the
layer's cache, reading the cache and the positions from the keywords the attention layer was called with."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20, 22, 25, 27]])


def prune_cache_hook(module, args, kwargs, output):
    cache = kwargs["past_key_values"]  # site: hook_kwargs_past_key_values
    layer = cache.layers[module.layer_idx]
    layer.keys, layer.values = layer.keys[:, :, -4:], layer.values[:, :, -4:]
    return output


def prefill_only_hook(module, args, kwargs, output):
    position = kwargs["cache_position"]  # site: hook_kwargs_cache_position
    module.prefilled = bool(position[-1] + 1 == kwargs["hidden_states"].shape[1])
    return output


def compat_hook(module, args, kwargs, output):
    cache = kwargs.get("cache", kwargs.get("past_key_values"))  # clean: hook_kwargs_compat
    layer = cache.layers[module.layer_idx]  # clean: hook_kwargs_layer
    layer.keys, layer.values = layer.keys[:, :, -4:], layer.values[:, :, -4:]
    return output


def prefill_with(hook):
    handles = [layer.self_attn.register_forward_hook(hook, with_kwargs=True) for layer in model.model.layers]
    try:
        cache = DynamicCache()
        model(prompt, past_key_values=cache, use_cache=True)
    finally:
        for handle in handles:
            handle.remove()
    return cache


def probe_prune():
    assert prefill_with(prune_cache_hook).get_seq_length() == 4


def probe_prefill_only():
    prefill_with(prefill_only_hook)
    assert all(layer.self_attn.prefilled for layer in model.model.layers)


def probe_compat():
    assert prefill_with(compat_hook).get_seq_length() == 4
