"""llm-compressor's KV-cache quantization calibration (before the attention / KV-cache refactor): a singleton
`QuantizedKVParameterCache(DynamicCache)` that fake-quantizes every key and value passing through `update` and
records per-layer scales and zero points from an observer; an attention pre-hook puts it into each attention
call under whichever cache keyword the attention's signature has (`past_key_value` before transformers#39956,
else `past_key_values`) with `use_cache=False`, and an output hook copies the layer's scales onto the module;
`get_seq_length` answers from `key_cache` and `_seen_tokens`, and `reset_states` empties those lists between
calibration batches.

Provenance (mechanisms read; this code is written here, not copied):
- vllm-project/llm-compressor @64675e006e6a49361a9ae17bd0869393eee8605a
  src/llmcompressor/modifiers/quantization/cache.py (QuantizedKVParameterCache: `__new__` singleton,
  `super().__init__()` once, observers and `k_scales` / `v_scales` / `k_zps` / `v_zps` lists, `update(self,
  key_states, value_states, layer_idx, cache_kwargs=None)` returning the quantize-dequantized states,
  `get_seq_length`: `if len(self.key_cache) <= layer_idx: return 0`, `return self._seen_tokens if layer_idx == 0
  else self._seen_tokens - 1`; `reset_states` setting `key_cache`, `value_cache`, `_seen_tokens`;
  `_pad_and_append_at_idx_`) and src/llmcompressor/modifiers/quantization/calibration.py
  (`calibrate_kv_cache_input_hook`: `module._past_kv_name = "past_key_value" if "past_key_value" in
  inspect.signature(module.forward).parameters else "past_key_values"`, `kwargs[module._past_kv_name] = kv_cache`,
  `kwargs["use_cache"] = False`, `return args, kwargs`; `calibrate_kv_cache_output_hook` reading
  `kv_cache.k_scales[module.layer_idx]`; `initialize_quantized_kv_cache` setting `module.kv_cache`).
Reduced: a symmetric 8-bit min-max observer written here instead of compressed-tensors' quantize / dequantize and
observer registry, the scales kept on the module as plain attributes.
"""

import inspect
from typing import Any, Dict, List, Optional

import torch
from torch import Tensor
from transformers import AutoModelForCausalLM, DynamicCache


def _pad_and_append_at_idx_(lst: List, idx: int, val: Any) -> list:
    num_to_pad = idx - len(lst) + 1
    if num_to_pad > 0:
        lst += [None] * num_to_pad
    lst[idx] = val
    return lst


class QuantizedKVParameterCache(DynamicCache):
    _instance = None
    _initialized = False

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super(QuantizedKVParameterCache, cls).__new__(cls)  # clean: kc_singleton
        return cls._instance

    def __init__(self, num_bits=8):
        if not self._initialized:
            super().__init__()  # clean: kc_super_init
            self.qmax = 2 ** (num_bits - 1) - 1
            self.k_scales: List[Tensor] = []
            self.v_scales: List[Tensor] = []
            self._initialized = True

    def update(self, key_states: Tensor, value_states: Tensor, layer_idx: int,  # site: kc_update_signature
               cache_kwargs: Optional[Dict[str, Any]] = None):
        k_scale = key_states.abs().amax().clamp(min=1e-5) / self.qmax
        v_scale = value_states.abs().amax().clamp(min=1e-5) / self.qmax
        _pad_and_append_at_idx_(self.k_scales, layer_idx, k_scale)
        _pad_and_append_at_idx_(self.v_scales, layer_idx, v_scale)
        qdq_keys = torch.round(key_states / k_scale).clamp(-self.qmax, self.qmax) * k_scale
        qdq_values = torch.round(value_states / v_scale).clamp(-self.qmax, self.qmax) * v_scale
        return qdq_keys, qdq_values

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        if len(self.key_cache) <= layer_idx:  # site: kc_key_cache_len
            return 0
        return self._seen_tokens if layer_idx == 0 else self._seen_tokens - 1

    def reset_states(self):
        self.key_cache: List[Tensor] = []  # clean: kc_reset_lists
        self.value_cache: List[Tensor] = []
        self._seen_tokens = 0

    def reset(self):
        QuantizedKVParameterCache._instance = None
        QuantizedKVParameterCache._initialized = False


def calibrate_kv_cache_input_hook(module, args, kwargs):
    kv_cache = getattr(module, "kv_cache")
    if not hasattr(module, "_past_kv_name"):
        module._past_kv_name = (
            "past_key_value"
            if "past_key_value" in inspect.signature(module.forward).parameters
            else "past_key_values"
        )
    kwargs[module._past_kv_name] = kv_cache  # site: kc_hook_cache_kwarg
    kwargs["use_cache"] = False
    return args, kwargs


def calibrate_kv_cache_output_hook(module, _args, _output):
    kv_cache = getattr(module, "kv_cache")
    module.k_scale = kv_cache.k_scales[module.layer_idx]  # observe: kc_hook_cache_kwarg
    module.v_scale = kv_cache.v_scales[module.layer_idx]


def start_calibration(model):
    for layer in model.model.layers:
        attn = layer.self_attn
        setattr(attn, "kv_cache", QuantizedKVParameterCache())
        attn.register_forward_pre_hook(calibrate_kv_cache_input_hook, with_kwargs=True)
        attn.register_forward_hook(calibrate_kv_cache_output_hook)


model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct")
calibration_ids = torch.tensor([[1, 14, 15, 16, 17, 18]])


def probe_calibrate():
    start_calibration(model)
    with torch.no_grad():
        model(calibration_ids, use_cache=False)
    assert all(hasattr(layer.self_attn, "k_scale") for layer in model.model.layers)


def probe_cache_in_forward():
    cache = QuantizedKVParameterCache()
    cache.reset_states()
    with torch.no_grad():
        out = model(calibration_ids, past_key_values=cache, use_cache=True)  # observe: kc_update_signature
    assert len(cache.k_scales) == model.config.num_hidden_layers and out.logits.shape[1] == 6


def probe_fresh_length():
    cache = QuantizedKVParameterCache()
    cache.get_seq_length()


def probe_reset_length():
    cache = QuantizedKVParameterCache()
    cache.reset_states()
    assert cache.get_seq_length() == 0
    cache.reset()
    assert QuantizedKVParameterCache() is not cache
