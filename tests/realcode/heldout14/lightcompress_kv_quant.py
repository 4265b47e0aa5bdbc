"""LightCompress (llmc) KV-cache quantization: `NaiveQuantKVCache`, a `DynamicCache` subclass registered for the
`kvcache` quantization config, stores each layer's keys and values quantized (`_quantized_key_cache` lists),
counts tokens in its own `_seen_tokens` inside `update(key_states, value_states, layer_idx, cache_kwargs)`, clears
itself with `_reset_states` (which also empties `key_cache` / `value_cache` lists), answers `get_seq_length` from
that count, and falls back to the base class when `use_org_kv` is set; during calibration and evaluation it is put
into each attention layer through a forward pre-hook that writes `kwargs['past_key_value'] = kvcache`.

Provenance (mechanisms read; this code is written here, not copied):
- ModelTC/LightCompress @9701d035b0aac5df97a2ebaadb30bcf0707616f5
  llmc/compression/quantization/kvquant.py (NaiveQuantKVCache(DynamicCache): `super().__init__()`, the
  `_quantized_key_cache` / `_quantized_value_cache` lists, `update(self, key_states, value_states, layer_idx,
  cache_kwargs)` with `if self.use_org_kv: return super().update(...)` and `if layer_idx == 0: self._seen_tokens +=
  key_states.shape[-2]`, prefill quantize / decode dequantize-concatenate-requantize, `_reset_states`,
  `get_seq_length` returning `self._seen_tokens`) and llmc/compression/blockwise_optimization.py
  (`kv_cache_input_hook`: `hook_fn(module, args, kwargs)` doing `kwargs['past_key_value'] = kvcache`, registered
  as a `with_kwargs` forward pre-hook on each attention layer that carries `kvcache`).
Reduced: per-token symmetric int8 instead of the configurable integer / float quantizers, no static calibration
buffers, no KIVI residual window.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache


class NaiveQuantKVCache(DynamicCache):
    def __init__(self, bits=8):
        super().__init__()  # clean: lt_super_init
        self.qmax = 2 ** (bits - 1) - 1
        self._quantized_key_cache = []
        self._quantized_value_cache = []
        self.use_org_kv = False

    def _quantize(self, tensor):
        scales = tensor.abs().amax(dim=-1, keepdim=True).clamp(min=1e-5) / self.qmax
        return {"q_tensor": torch.round(tensor / scales).to(torch.int8), "scales": scales}

    def _dequantize(self, q_tensors):
        return q_tensors["q_tensor"].to(torch.float32) * q_tensors["scales"]

    def update(self, key_states, value_states, layer_idx, cache_kwargs):  # site: lt_update_signature
        if self.use_org_kv:
            return super().update(key_states, value_states, layer_idx, cache_kwargs)  # clean: lt_org_update
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]  # site: lt_seen_tokens
        if len(self._quantized_key_cache) <= layer_idx:
            q_keys, q_values = self._quantize(key_states), self._quantize(value_states)
            self._quantized_key_cache.append(q_keys)
            self._quantized_value_cache.append(q_values)
            return self._dequantize(q_keys), self._dequantize(q_values)
        keys = torch.cat([self._dequantize(self._quantized_key_cache[layer_idx]), key_states], dim=-2)
        values = torch.cat([self._dequantize(self._quantized_value_cache[layer_idx]), value_states], dim=-2)
        self._quantized_key_cache[layer_idx] = self._quantize(keys)
        self._quantized_value_cache[layer_idx] = self._quantize(values)
        return keys, values

    def _reset_states(self):
        self._quantized_key_cache = []
        self._quantized_value_cache = []
        self.key_cache = []
        self.value_cache = []
        self._seen_tokens = 0

    def get_seq_length(self, layer_idx=0):
        if self.use_org_kv:
            return super().get_seq_length()  # clean: lt_org_length
        if len(self._quantized_key_cache) <= layer_idx:
            return 0
        return self._seen_tokens


def kv_cache_input_hook():
    def hook_fn(module, args, kwargs):
        kvcache = getattr(module, "kvcache")
        kwargs["past_key_value"] = kvcache  # site: lt_hook_kwarg
    return hook_fn


def register_kv_hooks(model, kv_module):
    for layer in model.model.layers:
        setattr(layer.self_attn, "kvcache", kv_module)
        layer.self_attn.register_forward_pre_hook(kv_cache_input_hook(), with_kwargs=True)


model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B")
input_ids = torch.tensor([[1, 7, 8, 9, 10]])


def probe_fresh_update():
    cache = NaiveQuantKVCache()
    cache.update(torch.ones(1, 2, 3, 8), torch.ones(1, 2, 3, 8), 0, {})


def probe_reset_forward():
    cache = NaiveQuantKVCache()
    cache._reset_states()
    with torch.no_grad():
        model(input_ids, past_key_values=cache, use_cache=True)  # observe: lt_update_signature
    assert cache.get_seq_length() == 5


def probe_original_kv():
    cache = NaiveQuantKVCache()
    cache.use_org_kv = True
    keys, values = cache.update(torch.ones(1, 2, 3, 8), torch.ones(1, 2, 3, 8), 0, {})
    assert keys.shape[-2] == 3 and cache.get_seq_length() == 3


def probe_eval_hook():
    kv_module = NaiveQuantKVCache()
    kv_module._reset_states()
    register_kv_hooks(model, kv_module)
    with torch.no_grad():
        model(input_ids, use_cache=False)
    seen = kv_module.get_seq_length()
    assert seen == 5, f"lt_hook_kwarg: the quantized cache saw {seen} tokens, not 5"  # observe: lt_hook_kwarg
