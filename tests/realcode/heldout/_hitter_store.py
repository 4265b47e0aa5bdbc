"""The project's own key/value store (no transformers base): legacy-style names on purpose."""

import torch


class HitterStore:
    def __init__(self):
        self.key_cache = []
        self.value_cache = []
        self.seen_tokens = 0

    @classmethod
    def from_legacy_cache(cls, pairs):
        store = cls()
        for k, v in pairs:
            store.key_cache.append(k)
            store.value_cache.append(v)
        store.seen_tokens = pairs[0][0].shape[-2] if pairs else 0
        return store

    def to_legacy_cache(self):
        return tuple(zip(self.key_cache, self.value_cache))

    def get_usable_length(self, new_tokens, layer_idx=0):
        return self.key_cache[layer_idx].shape[-2] if self.key_cache else 0

    def update(self, keys, values, layer_idx, cache_kwargs=None):
        if layer_idx == len(self.key_cache):
            self.key_cache.append(keys)
            self.value_cache.append(values)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], keys], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], values], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]
