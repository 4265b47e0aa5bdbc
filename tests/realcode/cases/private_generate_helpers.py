"""A compile-friendly generation wrapper that reaches into generate's private helpers and class flags."""

import torch
from transformers import AutoModelForCausalLM, StaticCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def model_static_cache():
    return model._get_cache(cache_implementation="static", batch_size=1, max_cache_len=16, model_kwargs={})  # site: private_get_cache


def supports_static():
    return model._supports_static_cache  # site: private_supports_static_cache


def own_static_cache():
    return StaticCache(config=model.config, max_cache_len=16)  # clean: private_own_static


def probe_get_cache():
    assert model_static_cache() is not None


def probe_supports_static():
    assert supports_static()


def probe_own():
    out = model.generate(prompt, past_key_values=own_static_cache(), max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[-1] == 8
