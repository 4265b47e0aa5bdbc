"""Imports of cache classes by a serving stack that supports several model families."""

import torch
from transformers import AutoModelForCausalLM, DynamicCache, StaticCache

try:
    from transformers import OffloadedCache  # clean: removed_guarded_import
except ImportError:
    OffloadedCache = None

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def jamba_cache_class():
    from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache  # site: removed_jamba_hybrid
    return HybridMambaAttentionDynamicCache


def quant_config_class():
    from transformers.cache_utils import QuantizedCacheConfig  # site: removed_quantized_cache_config
    return QuantizedCacheConfig


def hybrid_cache_class():
    from transformers import HybridCache  # site: removed_hybrid_cache
    return HybridCache


def sink_cache():
    from transformers import SinkCache  # observe: removed_sink_cache
    return SinkCache(window_length=8, num_sink_tokens=2)  # site: removed_sink_cache


def offload_or_dynamic():
    if OffloadedCache is not None:  # clean: removed_guarded_use
        return DynamicCache()
    return DynamicCache()


def static_cache():
    return StaticCache(config=model.config, max_cache_len=16)  # clean: removed_static_ok


def probe_jamba():
    assert jamba_cache_class() is not None


def probe_quant_config():
    assert quant_config_class() is not None


def probe_hybrid():
    assert hybrid_cache_class() is not None


def probe_sink():
    assert sink_cache() is not None


def probe_guarded():
    cache = offload_or_dynamic()
    model(prompt, past_key_values=cache, use_cache=True)
    out = model.generate(prompt, past_key_values=static_cache(), max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[-1] == 8
