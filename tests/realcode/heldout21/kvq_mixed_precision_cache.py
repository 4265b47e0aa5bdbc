"""KVQ (mohsenhariri/kvq, "More for Keys, Less for Values"): a pip package that quantizes the KV cache with more bits
for keys than for values through optimum-quanto. `KVQCacheConfig(CacheConfig)` validates nbits_k / nbits_v, axes,
group size and residual length; `KVQ(DynamicCache)` calls `super().__init__()`, keeps quantized per-layer tensors
beside a full-precision residual in `self.key_cache` / `self.value_cache`, counts tokens in `self._seen_tokens` from
its `update` override, answers `get_seq_length` from `len(self.key_cache)` and that count, and is handed to
`model.generate(**inputs, max_new_tokens=..., use_cache=True, past_key_values=kvq)`.

Provenance (mechanisms read; this code is written here, not copied):
- mohsenhariri/kvq @ad3e08ae9a4bc9093953323404d1439069dc92bc (March 2025)
  kvq/KVQ.py (`from transformers import CacheConfig, DynamicCache`; `class KVQCacheConfig(CacheConfig)` with
  `validate()`; `class KVQ(DynamicCache)`: `__init__(self, kvq_config)` with `super().__init__()`, `KVQCacheConfig(
  **kvq_config)` for a dict, `self.qtype_k = qint4 if self.nbits_k == 4 else qint2`, `self.optimizer =
  MaxOptimizer()`; `update(self, key_states, value_states, layer_idx, cache_kwargs=None)`: `if layer_idx == 0:
  self._seen_tokens += key_states.shape[-2]`, `elif len(self.key_cache) == layer_idx:` quantize and append, else
  dequantize, `torch.cat([dequant_key, self.key_cache[layer_idx], key_states], dim=-2)` and re-quantize past
  `residual_length`; `get_seq_length(self, layer_idx=0)`: `if len(self.key_cache) <= layer_idx: return 0`; `_quantize`
  with `quantize_weight(tensor, qtype, axis, scale, shift=zeropoint, group_size=..., optimized=True)`) and README.md
  (`kvq = KVQ(kvq_dict)`, `model.generate(**inputs, max_new_tokens=1024, use_cache=True, past_key_values=kvq)`).
Reduced: the base class of the config comes from a function (so the module imports where `CacheConfig` is gone and
the cache class can still be probed); the config keeps only the bit-width checks; the cache is always built from a
dict; the re-quantization branch past `residual_length` is gone (the residual only grows).
"""

from typing import Any, Dict, Optional

import torch
from optimum.quanto import MaxOptimizer, qint2, qint4, quantize_weight
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache


def cache_config_base():
    from transformers import CacheConfig  # site: kv_cache_config_import
    return CacheConfig


class KVQCacheConfig:
    def __init__(self, backend="quanto", nbits_k=4, nbits_v=2, axis_key=0, axis_value=0, q_group_size=64,
                 residual_length=128, compute_dtype=torch.bfloat16, device="cpu"):
        self.backend, self.nbits_k, self.nbits_v = backend, nbits_k, nbits_v
        self.axis_key, self.axis_value, self.q_group_size = axis_key, axis_value, q_group_size
        self.residual_length, self.compute_dtype, self.device = residual_length, compute_dtype, device
        if self.nbits_k not in [2, 4] or self.nbits_v not in [2, 4]:
            raise ValueError("Some of the keys in `cache_config` are defined incorrectly.")


class KVQ(DynamicCache):
    def __init__(self, kvq_config: Dict[str, Any]) -> None:
        super().__init__()  # clean: kv_super_init
        cache_config = KVQCacheConfig(**kvq_config)
        self._quantized_key_cache = []
        self._quantized_value_cache = []
        self.nbits_k, self.nbits_v = cache_config.nbits_k, cache_config.nbits_v
        self.axis_key, self.axis_value = cache_config.axis_key, cache_config.axis_value
        self.q_group_size = cache_config.q_group_size
        self.residual_length = cache_config.residual_length
        self.qtype_k = qint4 if self.nbits_k == 4 else qint2
        self.qtype_v = qint4 if self.nbits_v == 4 else qint2
        self.optimizer = MaxOptimizer()

    def update(self, key_states, value_states, layer_idx: int, cache_kwargs: Optional[Dict[str, Any]] = None):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]  # site: kv_seen_tokens
        if len(self.key_cache) < layer_idx:
            raise ValueError("KVQ does not support model usage where layers are skipped. Use DynamicCache.")
        elif len(self.key_cache) == layer_idx:
            self._quantized_key_cache.append(self._quantize(key_states.contiguous(), self.axis_key, self.qtype_k))
            self._quantized_value_cache.append(self._quantize(value_states.contiguous(), self.axis_value,
                                                              self.qtype_v))
            self.key_cache.append(torch.zeros(0, dtype=key_states.dtype))
            self.value_cache.append(torch.zeros(0, dtype=value_states.dtype))
            return key_states, value_states
        dequant_key = self._dequantize(self._quantized_key_cache[layer_idx])
        dequant_value = self._dequantize(self._quantized_value_cache[layer_idx])
        keys_to_return = torch.cat([dequant_key, self.key_cache[layer_idx], key_states], dim=-2)
        values_to_return = torch.cat([dequant_value, self.value_cache[layer_idx], value_states], dim=-2)
        self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
        self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return keys_to_return, values_to_return

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        if len(self.key_cache) <= layer_idx:  # site: kv_key_cache_len
            return 0
        return self._seen_tokens if layer_idx == 0 else self._seen_tokens - 1

    def _quantize(self, tensor, axis, qtype):
        scale, zeropoint = self.optimizer(tensor, qtype, axis, self.q_group_size)
        return quantize_weight(tensor, qtype, axis, scale, shift=zeropoint, group_size=self.q_group_size,  # clean: kv_quantize
                               optimized=True)

    def _dequantize(self, qtensor):
        return qtensor.dequantize()


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
inputs = tokenizer("keys need more bits than values", return_tensors="pt")
kvq_dict = {"nbits_k": 4, "nbits_v": 2, "axis_key": 0, "axis_value": 0, "q_group_size": 64, "residual_length": 128,
            "compute_dtype": torch.float32, "backend": "quanto", "device": model.device}


def probe_config_base():
    assert cache_config_base().__name__ == "CacheConfig"


def probe_build():
    kvq = KVQ(kvq_dict)
    assert kvq.qtype_k is qint4 and kvq.qtype_v is qint2


def probe_quantize_roundtrip():
    kvq = KVQ(kvq_dict)
    keys = torch.randn(1, 1, 4, 64)
    restored = kvq._dequantize(kvq._quantize(keys, kvq.axis_key, kvq.qtype_k))
    assert restored.shape == keys.shape


def probe_update():
    kvq = KVQ(kvq_dict)
    keys = torch.randn(1, 1, 4, 64)
    kvq.update(keys, keys, 0)


def probe_generate():
    kvq = KVQ(kvq_dict)
    outputs = model.generate(**inputs, max_new_tokens=3, min_new_tokens=3, use_cache=True, past_key_values=kvq)  # observe: kv_key_cache_len
    assert outputs.shape[1] == inputs["input_ids"].shape[1] + 3


def probe_plain_generate():
    outputs = model.generate(**inputs, max_new_tokens=3, min_new_tokens=3, use_cache=True)  # clean: kv_plain_generate
    assert outputs.shape[1] == inputs["input_ids"].shape[1] + 3
