"""flash-linear-attention's model caches (fla-org/flash-linear-attention): recurrent / linear-attention layers keep a
per-layer state dict (recurrent state, attention key/values, conv state) in a subclass of transformers' `Cache`.
`LegacyFLACache(Cache)` calls the bare `super().__init__()` and keeps `self.states` and `_seen_tokens` itself;
`FLACache(Cache)` inspects the parent constructor's signature and passes `layer_class_to_replicate=FLALayer` (or
`layer_classes=` on older releases), its `FLALayer(CacheLayerMixin)` storing the state dict and counting tokens;
`update(recurrent_state=..., attn_state=..., layer_idx=..., offset=...)` grows `self.layers` and delegates to the
layer.

Provenance (mechanisms read; this code is written here, not copied):
- fla-org/flash-linear-attention @bc3b101dcb713ddc5bd8924b66754eb68b5ccf89
  fla/models/utils.py (FLALayer(CacheLayerMixin): `__init__` calling `super().__init__()`, `state`, `_seen_tokens`,
  keyword-only `update`, `get_seq_length`, `get_max_length` (-1), `get_max_cache_shape`, `get_mask_sizes`
  returning (0, 0), `reset`; LegacyFLACache(HFCacheBase): `super().__init__()`, `self.states = []`, `__getitem__`,
  `get_seq_length`, `to_legacy_cache` / `from_legacy_cache`; FLACache(HFCacheBase): `inspect.signature(super().__init__)`,
  `super().__init__(layer_class_to_replicate=FLALayer, **kwargs)` or `layer_classes=FLALayer`, `update` appending
  `self.layer_class_to_replicate()` while `len(self.layers) <= layer_idx` and returning the layer's update).
Reduced: recurrent state and attention state only (no conv / ffn / A states, no sliding window, no offload /
prefetch); the model layers that call `update` are replaced by the probes.
"""

import inspect

import torch
from transformers.cache_utils import Cache, CacheLayerMixin


class FLALayer(CacheLayerMixin):
    is_compileable = True
    is_sliding = False

    def __init__(self):
        super().__init__()  # clean: fl_layer_init
        self.state = None
        self._seen_tokens = 0

    def lazy_initialization(self, key_states):
        self.state = None

    def update(self, *, recurrent_state=None, attn_state=None, offset=1, **_):
        if self.state is None:
            self.state = {"recurrent_state": recurrent_state, "attn_state": attn_state}
        else:
            if recurrent_state is not None:
                self.state["recurrent_state"] = recurrent_state
            if attn_state is not None:
                old = self.state["attn_state"]
                self.state["attn_state"] = tuple(torch.cat([o, n], dim=-2) for o, n in zip(old, attn_state))
        self._seen_tokens += offset
        return self.state

    def get_seq_length(self, cache_position=None):
        return self._seen_tokens

    def get_max_length(self):
        return -1

    def get_max_cache_shape(self):
        return self.get_max_length()

    def get_mask_sizes(self, cache_position):
        return 0, 0

    def reset(self):
        self.state = None
        self._seen_tokens = 0


class LegacyFLACache(Cache):
    def __init__(self, seen_tokens=0):
        super().__init__()  # site: fl_legacy_init
        self.states = []
        self._seen_tokens = seen_tokens

    def __len__(self):
        return len(self.states)

    def get_seq_length(self, layer_idx=0):
        return self._seen_tokens if len(self.states) > layer_idx else 0


class FLACache(Cache):
    def __init__(self, seen_tokens=0, **kwargs):
        param_names = list(inspect.signature(super().__init__).parameters.keys())
        if "layer_class_to_replicate" in param_names:
            self.use_layer_class_to_replicate = True
            super().__init__(layer_class_to_replicate=FLALayer, **kwargs)  # clean: fl_replicate_init
        elif "layer_classes" in param_names:
            self.use_layer_class_to_replicate = False
            super().__init__(layer_classes=FLALayer, **kwargs)
        else:
            raise TypeError("incompatible transformers version")
        self._seen_tokens = int(seen_tokens)  # clean: fl_own_seen_tokens

    def update(self, recurrent_state=None, attn_state=None, layer_idx=0, offset=1, cache_kwargs=None):
        while len(self.layers) <= layer_idx:
            self.layers.append(self.layer_class_to_replicate())  # clean: fl_append_layer
        return self.layers[layer_idx].update(recurrent_state=recurrent_state, attn_state=attn_state, offset=offset)

    def get_seq_length(self, layer_idx=0):
        if len(self.layers) <= layer_idx:
            return 0
        return self.layers[layer_idx].get_seq_length()  # clean: fl_seq_length


def probe_legacy_cache():
    cache = LegacyFLACache()
    cache.states.append({"recurrent_state": torch.zeros(1, 2, 4, 4)})
    assert len(cache) == 1


def probe_fla_cache():
    cache = FLACache()
    for step in range(3):
        for layer_idx in range(2):
            cache.update(recurrent_state=torch.full((1, 2, 4, 4), float(step)),
                         attn_state=(torch.zeros(1, 2, 1, 4), torch.zeros(1, 2, 1, 4)), layer_idx=layer_idx)
    assert cache.get_seq_length(0) == 3 and cache.layers[1].state["attn_state"][0].shape[-2] == 3
