"""AutoRound (intel/auto-round), a quantization toolkit, calibrates static FP8 key/value scales: inside
`kvcache_quant_context` every attention module gets one shared `QuantizedKVParameterCache(DynamicCache)` (a
singleton: `__new__` hands back the one instance, `__init__` runs `super().__init__()` once), a forward pre-hook
(`register_forward_pre_hook(..., with_kwargs=True)`) that swaps the layer's cache keyword for it
(`kwargs["past_key_values"] = kv_cache` when the keyword is there, else `kwargs["past_key_value"]`, the name before
4.55.2) and sets `use_cache=False`, and a forward hook that copies `kv_cache.k_scales[module.layer_idx]` (and the
value scale) into the module's `k_scale` / `v_scale` parameters. The cache's `update` quantizes the new states to
float8_e4m3fn and back and records the per-layer scale; it stores nothing.

Provenance (mechanisms read; this code is written here, not copied):
- intel/auto-round @b9f3d0079d014c73a1ff009800c597b9bc3f2a36 auto_round/experimental/kv_cache.py
  (QuantizedKVParameterCache: __new__, __init__, update, _quant_dequant; initialize_quantized_kv_cache,
  calibrate_kv_cache_input_hook, calibrate_kv_cache_output_hook, prep_attention_module_for_calibration,
  kvcache_quant_context) and auto_round/experimental/utils.py (per_tensor_fp8_qdq, update_parameter_data,
  is_attention_module).
Reduced: a tiny Llama from a config; per-tensor granularity only; the calibration data is one batch of ids; the
context manager's freeze and cleanup phase is a plain function; no logging.
"""

from enum import Enum

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.cache_utils import DynamicCache

model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2)).eval()


class KVCacheScaleType(Enum):
    KEY = "k_scale"
    VALUE = "v_scale"


def fp8_qdq(tensor):
    info = torch.finfo(torch.float8_e4m3fn)
    scale = torch.clip(tensor.abs().amax().to(torch.float32) / info.max, min=float(1.0 / (info.max * 512.0)))
    fp8 = torch.clip(tensor / scale, info.min, info.max).to(torch.float8_e4m3fn)
    return (fp8.to(tensor.dtype) * scale).to(tensor.dtype), scale


def update_parameter_data(module, new_val, name):
    if hasattr(module, name) and isinstance(getattr(module, name), torch.nn.Parameter):
        getattr(module, name).data.copy_(new_val)
    else:
        module.register_parameter(name, torch.nn.Parameter(new_val))


def is_attention_module(module):
    return "attention" in module.__class__.__name__.lower() and (
        hasattr(module, "k_proj") or hasattr(module, "v_proj") or hasattr(module, "qkv_proj"))


def _pad_and_append_at_idx_(lst, idx, val):
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
            cls._instance = super(QuantizedKVParameterCache, cls).__new__(cls)
        return cls._instance

    def __init__(self, dtype=torch.float8_e4m3fn):
        assert dtype == torch.float8_e4m3fn, "Only fp8_e4m3fn is supported for now."
        if not self._initialized:
            super().__init__()  # clean: ar_dynamic_init
            self.k_scales = []
            self.v_scales = []
            self._initialized = True

    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):
        qdq_key_states = self._quant_dequant(key_states.contiguous(), KVCacheScaleType.KEY, layer_idx)
        qdq_value_states = self._quant_dequant(value_states.contiguous(), KVCacheScaleType.VALUE, layer_idx)
        return qdq_key_states, qdq_value_states

    def reset(self):
        QuantizedKVParameterCache._instance = None
        QuantizedKVParameterCache._initialized = False

    def _quant_dequant(self, tensor, kv_type, layer_idx):
        scales = self.k_scales if kv_type == KVCacheScaleType.KEY else self.v_scales
        qdq_tensor, scale = fp8_qdq(tensor)
        _pad_and_append_at_idx_(scales, layer_idx, scale.reshape(-1).detach())
        return qdq_tensor


def initialize_quantized_kv_cache(module, dtype=torch.float8_e4m3fn):
    if not is_attention_module(module):
        return
    if isinstance(getattr(module, "kv_cache", None), QuantizedKVParameterCache):
        return
    quantized_kv_cache = QuantizedKVParameterCache(dtype=dtype)  # clean: ar_cache_init
    module.kv_cache = quantized_kv_cache
    init_scale = torch.tensor([0.0])
    update_parameter_data(module, init_scale.clone(), KVCacheScaleType.KEY.value)
    update_parameter_data(module, init_scale.clone(), KVCacheScaleType.VALUE.value)


def calibrate_kv_cache_input_hook(module, args, kwargs):
    kv_cache = module.kv_cache
    if "past_key_values" in kwargs:  # site: ar_hook_cache_keyword
        kwargs["past_key_values"] = kv_cache
    else:
        kwargs["past_key_value"] = kv_cache
    kwargs["use_cache"] = False
    return args, kwargs


def calibrate_kv_cache_output_hook(module, _args, _output):
    kv_cache = module.kv_cache
    k_scale = kv_cache.k_scales[module.layer_idx]  # observe: ar_hook_cache_keyword
    v_scale = kv_cache.v_scales[module.layer_idx]
    update_parameter_data(module, k_scale, KVCacheScaleType.KEY.value)
    update_parameter_data(module, v_scale, KVCacheScaleType.VALUE.value)


def prep_attention_module_for_calibration(module):
    if is_attention_module(module):
        module.register_forward_pre_hook(calibrate_kv_cache_input_hook, with_kwargs=True)
        module.register_forward_hook(calibrate_kv_cache_output_hook)


def calibrate(model, batch):
    model.apply(initialize_quantized_kv_cache)
    model.apply(prep_attention_module_for_calibration)
    with torch.no_grad():
        model(batch)
    return [layer.self_attn.k_scale for layer in model.model.layers]


def probe_cache_singleton():
    QuantizedKVParameterCache().reset()
    first = QuantizedKVParameterCache()
    assert QuantizedKVParameterCache() is first and first.k_scales == []
    first.reset()


def probe_init_modules():
    QuantizedKVParameterCache().reset()
    model.apply(initialize_quantized_kv_cache)
    caches = [layer.self_attn.kv_cache for layer in model.model.layers]
    assert caches[0] is caches[1] and float(model.model.layers[0].self_attn.k_scale) == 0.0


def probe_calibrate_scales():
    QuantizedKVParameterCache().reset()
    scales = calibrate(model, torch.tensor([[3, 4, 5, 6, 7]]))
    assert all(float(s) > 0 for s in scales)
