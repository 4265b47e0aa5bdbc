"""TriForce's hierarchical speculative decoding keeps its own KV caches, outside transformers' cache classes: the
project's own base class is even called `Cache`, its FlashSimpleCache preallocates `key_cache` / `value_cache`
tensors of shape [layers, batch, budget, kv_heads, head_dim] sized from a transformers Llama model's config, and
`update(key_states, value_states, layer_idx)` writes the new states at `seq_len`, returns the filled prefix and
advances `seq_len` after the last layer; a retrieval cache gathers chunks of it; `reset` zeroes the buffers.

Provenance (mechanisms read; this code is written here, not copied):
- Infini-AI-Lab/TriForce @164c8c0131cf49951eefdea89a3fbcccb8ca326b
  models/cache.py (`class Cache` with an abstract `update`, FlashSimpleCache(Cache): `self.key_cache =
  torch.zeros([self.layers, 1, self.max_budget, self.num_heads, self.head_dim], ...)`, sizes from
  `model.config.hidden_size`, `num_key_value_heads`, `num_attention_heads`, `num_hidden_layers`, the dtype from
  `model.model.layers[0].self_attn.q_proj.weight.dtype`; `reset`; `update`: `self.key_cache[layer_idx][:,
  self.seq_len : self.seq_len + key_states.shape[-3]] = key_states`, `key = self.key_cache[layer_idx][:, :self.seq_len +
  value_states.shape[-3]]`, `if layer_idx == self.layers-1: self.seq_len += ...`; RetrievalCache's chunk gather from
  `kv_cache.key_cache[layer_idx, :, :self.prefill]`) and models/modeling_llama.py (`kv_cache.update(key_states,
  value_states, layer_idx=self.layer_idx)`, `kv_cache.seq_len`).
Reduced: single device, no offloading or CUDA graphs; the attention that feeds the cache is a probe loop.
"""

import torch
from transformers import AutoModelForCausalLM


class Cache:
    def update(self, key_states, value_states, layer_idx):
        raise NotImplementedError("Make sure to implement `update` in a subclass.")


class FlashSimpleCache(Cache):
    def __init__(self, model, max_budget=64):
        self.seq_len = 0
        self.max_budget = max_budget
        self.hidden_size = model.config.hidden_size
        self.num_heads = model.config.num_key_value_heads
        self.head_dim = self.hidden_size // model.config.num_attention_heads
        self.layers = model.config.num_hidden_layers
        dtype = model.model.layers[0].self_attn.q_proj.weight.dtype
        shape = [self.layers, 1, self.max_budget, self.num_heads, self.head_dim]
        self.key_cache = torch.zeros(shape, dtype=dtype)  # clean: tf_own_key_buffer
        self.value_cache = torch.zeros(shape, dtype=dtype)  # clean: tf_own_value_buffer

    def reset(self):
        self.seq_len = 0
        for i in range(self.layers):
            self.key_cache[i].zero_()  # clean: tf_own_reset

    def update(self, key_states, value_states, layer_idx):
        end = self.seq_len + key_states.shape[-3]
        self.key_cache[layer_idx][:, self.seq_len:end] = key_states  # clean: tf_own_write
        self.value_cache[layer_idx][:, self.seq_len:end] = value_states
        key = self.key_cache[layer_idx][:, :end]  # clean: tf_own_read
        value = self.value_cache[layer_idx][:, :end]
        if layer_idx == self.layers - 1:
            self.seq_len += key_states.shape[-3]  # clean: tf_own_seq_len
        return key, value


class RetrievalCache:
    def __init__(self, kv_cache, chunk_size=2):
        self.kv_cache = kv_cache
        self.chunk_size = chunk_size

    def chunk_means(self, layer_idx, prefill):
        chunks = prefill // self.chunk_size
        keys = self.kv_cache.key_cache[layer_idx, :, :prefill]  # clean: tf_own_gather
        return keys.reshape(1, chunks, self.chunk_size, self.kv_cache.num_heads, self.kv_cache.head_dim).mean(dim=-3)


model = AutoModelForCausalLM.from_pretrained("togethercomputer/LLaMA-2-7B-32K")


def fill(cache, steps):
    for _ in range(steps):
        for layer_idx in range(cache.layers):
            k = torch.randn(1, 3, cache.num_heads, cache.head_dim)
            key, _ = cache.update(k, torch.randn_like(k), layer_idx)  # clean: tf_own_update_call
    return key


def probe_update():
    cache = FlashSimpleCache(model)
    key = fill(cache, 2)
    assert cache.seq_len == 6 and key.shape == (1, 6, 1, 64)


def probe_reset_and_gather():
    cache = FlashSimpleCache(model)
    fill(cache, 2)
    means = RetrievalCache(cache).chunk_means(0, 6)
    assert means.shape == (1, 3, 1, 64)
    cache.reset()
    assert cache.seq_len == 0 and float(cache.key_cache[0].abs().sum()) == 0.0
