"""A training/inference engine's own model family: each attention layer keeps a small cache object of its own
(keys and values concatenated along the sequence, a seen-token count, a crop), and a `GenerationCache` subclasses
transformers' `Cache` only to be accepted by `generate`, holding one such layer cache per layer and forwarding
`update`/`get_seq_length` to them.

Provenance (mechanisms read; this code is written here, not copied):
- IBM/dolomite-engine @03fa2d313297b7beb9f905ca482c79344c10a8dc dolomite_engine/hf_models/cache/__init__.py
  (`class GenerationCache(Cache)`: `super().__init__()`, `self._seen_tokens = 0`, `self.cache = [
  SoftmaxAttentionCache() for _ in range(config.num_layers)]`, `__getitem__`/`__iter__` returning each layer's
  `get_cache()`, `update(*, layer_idx, **kwargs)` and `get_seq_length(layer_idx)` forwarded to the layer)
- IBM/dolomite-engine @05a7178eccdd45021a8c9d4cfda5e73287970956 dolomite_engine/hf_models/cache/attention.py
  (`SoftmaxAttentionCache` with no base class: `key_cache`/`value_cache` None until the first `update`, then
  `torch.cat` along the sequence dimension; `get_seq_length`; `crop(max_length)` trimming `key_cache`)
Reduced: the Mamba/RNN layer caches and the hybrid cache built on transformers' Jamba class are left out; the
layer cache's `crop` works on its two tensors.
"""

import torch
from transformers import Cache


class SoftmaxAttentionCache:
    def __init__(self):
        self._seen_tokens = 0
        self.key_cache = None
        self.value_cache = None

    def get_cache(self):
        return self.key_cache, self.value_cache

    def update(self, key_states, value_states=None, sequence_length_dimension=-2):
        self._seen_tokens += key_states.size(sequence_length_dimension)
        if self.key_cache is None:
            self.key_cache = key_states
        else:
            self.key_cache = torch.cat([self.key_cache, key_states], dim=sequence_length_dimension)  # clean: dl_own_update
        if value_states is not None:
            if self.value_cache is None:
                self.value_cache = value_states
            else:
                self.value_cache = torch.cat([self.value_cache, value_states], dim=sequence_length_dimension)
        return self.key_cache, self.value_cache

    def get_seq_length(self, layer_idx=0):
        return 0 if self.key_cache is None else self.key_cache.shape[-2]  # clean: dl_own_length

    def crop(self, max_length):
        if max_length < 0:
            max_length = self.get_seq_length() - abs(max_length)
        if self.get_seq_length() <= max_length:
            return
        self._seen_tokens = max_length
        self.key_cache = self.key_cache[..., :max_length, :]  # clean: dl_own_crop
        self.value_cache = self.value_cache[..., :max_length, :]


class CommonConfig:
    def __init__(self, num_layers):
        self.num_layers = num_layers


class GenerationCache(Cache):
    def __init__(self, config):
        super().__init__()  # site: dl_base_init
        self._seen_tokens = 0
        self.cache = [SoftmaxAttentionCache() for _ in range(config.num_layers)]

    def __getitem__(self, layer_idx):
        return self.cache[layer_idx].get_cache()

    def __iter__(self):
        for layer_idx in range(len(self.cache)):
            yield self.cache[layer_idx].get_cache()

    def update(self, *, layer_idx, **kwargs):
        return self.cache[layer_idx].update(**kwargs)

    def get_seq_length(self, layer_idx=0):
        return self.cache[layer_idx].get_seq_length()


def probe_layer_cache():
    layer = SoftmaxAttentionCache()
    for _ in range(3):
        layer.update(torch.ones(1, 2, 4, 8), torch.ones(1, 2, 4, 8))
    assert layer.get_seq_length() == 12
    layer.crop(-2)
    assert layer.get_seq_length() == 10 and layer.value_cache.shape[-2] == 10


def probe_generation_cache():
    cache = GenerationCache(CommonConfig(num_layers=2))
    cache.update(layer_idx=0, key_states=torch.ones(1, 2, 4, 8), value_states=torch.ones(1, 2, 4, 8))
    assert cache.get_seq_length(0) == 4
