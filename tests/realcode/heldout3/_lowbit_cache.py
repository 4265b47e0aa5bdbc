"""A project's own trimmed copy of a cache module (lowbit_static_loader.py imports it): classes named like
transformers' ones, none of them transformers'. Written here after the mechanism of
vipulSharma18/Getting-Started-with-Quantization low_bit_inference/optims/cache_optim.py (see that case)."""

import torch


class StaticLayer:
    def __init__(self, max_cache_len):
        self.max_cache_len = max_cache_len
        self.keys = None
        self.values = None
        self.filled = 0

    def lazy_initialization(self, key_states):
        batch, heads, _, dim = key_states.shape
        self.keys = torch.zeros(batch, heads, self.max_cache_len, dim, dtype=key_states.dtype)
        self.values = torch.zeros_like(self.keys)

    def update(self, key_states, value_states, cache_kwargs=None):
        if self.keys is None:
            self.lazy_initialization(key_states)
        positions = cache_kwargs["cache_position"]
        self.keys.index_copy_(2, positions, key_states)
        self.values.index_copy_(2, positions, value_states)
        self.filled = max(self.filled, int(positions[-1]) + 1)
        return self.keys, self.values

    def get_seq_length(self):
        return self.filled

    def get_max_cache_shape(self):
        return self.max_cache_len


class Cache:
    def __init__(self, layers=None):
        self.layers = layers if layers is not None else []

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        return self.layers[layer_idx].update(key_states, value_states, cache_kwargs)

    def get_seq_length(self, layer_idx=0):
        if layer_idx >= len(self.layers):
            return 0
        return self.layers[layer_idx].get_seq_length()

    def get_max_cache_shape(self, layer_idx=0):
        if layer_idx >= len(self.layers):
            return -1
        return self.layers[layer_idx].get_max_cache_shape()

    def __getitem__(self, layer_idx):
        if layer_idx >= len(self.layers):
            raise KeyError(f"Cache only has {len(self.layers)} layers, attempted to access layer {layer_idx}")
        return self.layers[layer_idx].keys, self.layers[layer_idx].values

    def __iter__(self):
        for layer in self.layers:
            yield layer.keys, layer.values

    def __len__(self):
        return len(self.layers)


class StaticCache(Cache):
    is_compileable = True

    def __init__(self, config, max_cache_len, **kwargs):
        super().__init__(layers=[StaticLayer(max_cache_len) for _ in range(config.num_hidden_layers)])
