"""Press-style Cache subclasses: update() is overridden to score or count incoming keys, one of them using the
positions the attention layer passes in cache_kwargs."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


class PositionPressCache(DynamicCache):
    def __init__(self):
        super().__init__()
        self.positions = []

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # observe: press_update_cache_position
        pos = cache_kwargs["cache_position"]  # site: press_update_cache_position
        self.positions.append(int(pos[-1]))
        return super().update(key_states, value_states, layer_idx, cache_kwargs)


class NormPressCache(DynamicCache):
    def __init__(self):
        super().__init__()
        self.norms = []

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # site: press_update_signature
        self.norms.append(float(key_states.norm()))
        return super().update(key_states, value_states, layer_idx, cache_kwargs)


class CountingCache(DynamicCache):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None, **kwargs):  # clean: press_update_compat
        self.calls += 1
        return super().update(key_states, value_states, layer_idx, cache_kwargs, **kwargs)  # clean: press_update_super


def probe_position_press():
    cache = PositionPressCache()
    model(prompt, past_key_values=cache, use_cache=True)  # observe: press_update_cache_position
    assert cache.positions[-1] == 4


def probe_norm_press():
    cache = NormPressCache()
    model(prompt, past_key_values=cache, use_cache=True)  # observe: press_update_signature
    assert len(cache.norms) == model.config.num_hidden_layers


def probe_counting():
    cache = CountingCache()
    model(prompt, past_key_values=cache, use_cache=True)
    assert cache.calls == model.config.num_hidden_layers
