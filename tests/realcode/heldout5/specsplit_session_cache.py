"""Disaggregated speculative decoding: the target worker keeps a pre-allocated per-session KV cache of its own
(a transformers `Cache` subclass whose `key_cache`/`value_cache` are two 5-D buffers written by slice, rolled
back by moving a pointer) and forwards the accepted tokens with it; version-agnostic helpers turn whatever cache
a model returns into `((k, v), ...)` tuples, crop it to the accepted length, batch several sessions' caches into
one and turn the tuples back into a `DynamicCache` for the forward.

Provenance (mechanisms read; this code is written here, not copied):
- SamvritSrinath/SpecSplit @195c83653c24f3bce5b9542e545fc1b7c9e02d43 specsplit/workers/target/kv_cache.py
  (`StaticKVCache(HFCache)`: `super().__init__(layers=[])`, `self.key_cache`/`self.value_cache = torch.empty(
  num_layers, batch, heads, max_seq_len, head_dim)`, `append` by slice assignment, `rollback` moves `_seq_len`;
  `update(key_states, value_states, layer_idx, cache_kwargs)`: `cache_position = cache_kwargs.get(
  "cache_position")`, `index_copy_` at those positions else a contiguous append, `_seq_len` advanced on the last
  layer; `get_seq_length` returns `_seq_len`; `crop` maps to `rollback`)
- SamvritSrinath/SpecSplit @0ff7cfe21ea92161a1a5c2575cabc135b292aed5 specsplit/workers/target/engine.py
  (`_advance_cache_with_tokens`: `self._model(input_ids=..., position_ids=..., past_key_values=cache_state.cache,
  use_cache=True)`)
- SamvritSrinath/SpecSplit @18a2878cfaffddae384618b9e66bd7e0bfcafd97 specsplit/core/cache_utils.py
  (`cache_to_legacy`: `if hasattr(past_kv, "to_legacy_cache"): return past_kv.to_legacy_cache()` else tuples
  from `.layers`; `crop_cache`: `if hasattr(past_kv, "crop"): past_kv.crop(max_length)`; `batch_model_caches`
  concatenates sessions per layer; `legacy_to_dynamic_cache`: `from_legacy_cache` when the class has it, else
  `DynamicCache(ddp_cache_data=past_kv, config=config)`)
Reduced: the virtual index layer, the tree attention and the gRPC services are left out; one layer of the
fallback chain (the config-less constructor) is left out.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache
from transformers.cache_utils import Cache as HFCache

prompt = torch.tensor([[1, 21, 22, 23, 24, 25]])


class StaticKVCache(HFCache):
    def __init__(self, num_layers, num_heads, max_seq_len, head_dim, batch_size=1, dtype=torch.float32):
        super().__init__(layers=[])  # clean: sp_base_init
        self.num_layers = num_layers
        self.max_seq_len = max_seq_len
        self.key_cache = torch.zeros(num_layers, batch_size, num_heads, max_seq_len, head_dim, dtype=dtype)  # clean: sp_own_buffer
        self.value_cache = torch.zeros(num_layers, batch_size, num_heads, max_seq_len, head_dim, dtype=dtype)
        self._seq_len = 0

    def append(self, new_keys, new_values):
        end = self._seq_len + new_keys.shape[3]
        self.key_cache[:, :, :, self._seq_len:end, :] = new_keys  # clean: sp_own_append
        self.value_cache[:, :, :, self._seq_len:end, :] = new_values
        self._seq_len = end

    def rollback(self, accepted_length):
        if accepted_length < 0 or accepted_length > self._seq_len:
            raise ValueError(f"accepted_length {accepted_length} out of range")
        self._seq_len = accepted_length

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):  # site: sp_update
        cache_kwargs = cache_kwargs or {}
        cache_position = cache_kwargs.get("cache_position")
        k_slice, v_slice = self.key_cache[layer_idx], self.value_cache[layer_idx]
        if cache_position is not None:
            k_slice.index_copy_(2, cache_position, key_states)
            v_slice.index_copy_(2, cache_position, value_states)
            new_len = max(self._seq_len, int(cache_position.max().item()) + 1)
        else:
            new_len = self._seq_len + key_states.shape[2]
            k_slice[:, :, self._seq_len:new_len, :] = key_states
            v_slice[:, :, self._seq_len:new_len, :] = value_states
        if layer_idx == self.num_layers - 1:
            self._seq_len = new_len
        return k_slice[:, :, :new_len, :], v_slice[:, :, :new_len, :]

    def get_seq_length(self, layer_idx=0):
        return self._seq_len

    def crop(self, max_length):
        self.rollback(max_length)


def cache_to_legacy(past_kv):
    if past_kv is None:
        return None
    if isinstance(past_kv, tuple) and len(past_kv) > 0 and isinstance(past_kv[0], (tuple, list)):
        return past_kv
    if hasattr(past_kv, "to_legacy_cache"):
        return past_kv.to_legacy_cache()  # clean: sp_legacy_guarded
    if hasattr(past_kv, "layers") and isinstance(past_kv.layers, (list, tuple)):
        return tuple((layer.keys, layer.values) for layer in past_kv.layers  # clean: sp_legacy_layers
                     if getattr(layer, "keys", None) is not None)
    return None


def crop_cache(past_kv, max_length):
    if hasattr(past_kv, "crop"):
        past_kv.crop(max_length)  # site: sp_crop_keep
        return past_kv
    legacy = cache_to_legacy(past_kv)
    return tuple((k[:, :, :max_length, :], v[:, :, :max_length, :]) for k, v in legacy)


def batch_model_caches(caches):
    legacy_caches = [cache_to_legacy(cache) for cache in caches]
    return tuple((torch.cat([c[i][0] for c in legacy_caches], dim=0), torch.cat([c[i][1] for c in legacy_caches], dim=0))
                 for i in range(len(legacy_caches[0])))


def legacy_to_dynamic_cache(past_kv, config):
    if past_kv is None or not isinstance(past_kv, tuple) or len(past_kv) == 0:
        return past_kv
    if hasattr(DynamicCache, "from_legacy_cache"):
        try:
            return DynamicCache.from_legacy_cache(past_kv)  # clean: sp_from_legacy_guarded
        except (TypeError, AttributeError):
            pass
    try:
        return DynamicCache(ddp_cache_data=past_kv, config=config)  # clean: sp_ddp_ctor
    except (TypeError, AttributeError, IndexError):
        pass
    return past_kv


class TargetEngine:
    def __init__(self, model_name):
        self.model = AutoModelForCausalLM.from_pretrained(model_name, attn_implementation="sdpa").eval()

    def create_cache(self):
        cfg = self.model.config
        return StaticKVCache(cfg.num_hidden_layers, cfg.num_key_value_heads, 64, cfg.head_dim)

    def advance(self, cache, token_ids):
        start = cache.get_seq_length()
        input_ids = torch.tensor([token_ids])
        position_ids = torch.arange(start, start + len(token_ids)).unsqueeze(0)
        with torch.no_grad():
            outputs = self.model(input_ids=input_ids, position_ids=position_ids, past_key_values=cache,  # observe: sp_update
                                 use_cache=True)
        return outputs.logits[0, -1, :]

    def prefill(self, input_ids):
        with torch.no_grad():
            return self.model(input_ids, use_cache=True).past_key_values  # clean: sp_prefill


MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def probe_own_cache():
    cache = StaticKVCache(2, 1, 16, 64)
    cache.append(torch.ones(2, 1, 1, 4, 64), torch.ones(2, 1, 1, 4, 64))
    cache.crop(2)
    assert cache.get_seq_length() == 2 and cache.key_cache.shape == (2, 1, 1, 16, 64)


def probe_static_forward():
    engine = TargetEngine(MODEL)
    cache = engine.create_cache()
    logits = engine.advance(cache, [1, 21, 22, 23])
    assert logits.shape == (320,) and cache.get_seq_length() == 4


def probe_legacy():
    engine = TargetEngine(MODEL)
    legacy = cache_to_legacy(engine.prefill(prompt))
    assert len(legacy) == 2 and legacy[0][0].shape[2] == 6


def probe_crop():
    engine = TargetEngine(MODEL)
    cache = crop_cache(engine.prefill(prompt), 4)
    assert cache.get_seq_length() == 4


def probe_batched_forward():
    engine = TargetEngine(MODEL)
    caches = [engine.prefill(prompt), engine.prefill(prompt)]
    batched = legacy_to_dynamic_cache(batch_model_caches(caches), engine.model.config)
    with torch.no_grad():
        out = engine.model(torch.tensor([[30], [31]]), past_key_values=batched, use_cache=True)  # clean: sp_batched_forward
    assert out.logits.shape == (2, 1, 320) and out.past_key_values.get_seq_length() == 7
