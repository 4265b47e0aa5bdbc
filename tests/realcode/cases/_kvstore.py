"""The project's own KV store (not a transformers cache): its own legacy conversions and per-layer lists."""


class TensorKVStore:
    def __init__(self):
        self.key_cache = []
        self.value_cache = []
        self.seen_tokens = 0

    def append(self, k, v):
        self.key_cache.append(k)
        self.value_cache.append(v)
        self.seen_tokens = k.shape[-2]

    def to_legacy_cache(self):
        return tuple(zip(self.key_cache, self.value_cache))

    @classmethod
    def from_legacy_cache(cls, legacy):
        store = cls()
        for k, v in legacy:
            store.append(k, v)
        return store

    def crop(self, n):
        self.key_cache = [k[:, :, :n] for k in self.key_cache]
        self.value_cache = [v[:, :, :n] for v in self.value_cache]
        self.seen_tokens = n

    def __getitem__(self, i):
        return self.key_cache[i], self.value_cache[i]
