"""A low-bit inference study: the loader sizes a static cache to the next power of two above prompt + new
tokens, and the study's own attention writes each layer into it with explicit cache positions. The cache classes
come from the project's own trimmed copy of a cache module (`_lowbit_cache.py`), not from transformers.

Provenance (mechanisms read; this code is written here, not copied):
- vipulSharma18/Getting-Started-with-Quantization @22b7bce892b87ae37ed29d58f74e56975f1378d2
  low_bit_inference/hf_loader.py (`from low_bit_inference.optims.cache_optim import StaticCache`;
  `cache_size = 2**math.ceil(math.log(prompt_len + max_new_tokens, 2))`; `StaticCache(config=model.config,
  max_batch_size=1, max_cache_len=cache_size, device=..., dtype=...)`; `generation_config.cache_implementation =
  None`), low_bit_inference/model.py (`cache_kwargs = {"sin": sin, "cos": cos, "cache_position":
  cache_position}`, `past_key_values.update(key_states, value_states, self.layer_idx, cache_kwargs)`;
  `past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0`),
  low_bit_inference/optims/cache_optim.py (own Cache with `layers`, `__getitem__`, `__iter__`,
  `get_max_cache_shape`; own StaticCache(config, max_cache_len, **kwargs))
"""

import math

import torch
from _lowbit_cache import StaticCache
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct")


def load_cache(prompt_len, max_new_tokens):
    model.generation_config.cache_implementation = None
    cache_size = 2 ** math.ceil(math.log(prompt_len + max_new_tokens, 2))
    return StaticCache(config=model.config, max_batch_size=1, max_cache_len=cache_size,  # clean: lb_static_kwargs
                       device="cpu", dtype=torch.float32)


def positions_for(past_key_values, length):
    past_seen_tokens = past_key_values.get_seq_length() if past_key_values is not None else 0  # clean: lb_seen
    return torch.arange(past_seen_tokens, past_seen_tokens + length)


def attend(past_key_values, layer_idx, key_states, value_states, cache_position):
    cache_kwargs = {"sin": None, "cos": None, "cache_position": cache_position}
    return past_key_values.update(key_states, value_states, layer_idx, cache_kwargs)  # clean: lb_update_positions


def room_left(past_key_values):
    return past_key_values.get_max_cache_shape() - past_key_values.get_seq_length()  # clean: lb_max_shape


def first_layer(past_key_values):
    keys, values = past_key_values[0]  # clean: lb_layer_index
    return keys.shape[2]


def step(cache, length):
    positions = positions_for(cache, length)
    for layer_idx in range(len(cache)):
        attend(cache, layer_idx, torch.ones(1, 1, length, 64), torch.ones(1, 1, length, 64), positions)


def probe_loader():
    cache = load_cache(prompt_len=5, max_new_tokens=4)
    step(cache, 5)
    step(cache, 1)
    assert cache.get_seq_length() == 6 and room_left(cache) == 10
    assert first_layer(cache) == 16
