"""A serving package's compatibility module: cache classes imported by name with fallbacks, so one wheel works
across transformers releases; its config helper names the quantized cache's config class.

Provenance (mechanisms read; this code is written here, not copied):
- NVIDIA/kvpress kvpress/pipeline.py @02e13c867ea27f4f76b9b93e17faea78217909a5 (imports `Cache, DynamicCache,
  QuantizedCache` from transformers at module level)
- microsoft/MInference minference/patch.py (`from transformers.cache_utils import Cache` beside its own cache
  classes)
"""

import transformers
from transformers import DynamicCache, QuantizedCache  # clean: ci_quantized_import

try:
    from transformers.cache_utils import SinkCache
except ImportError:
    SinkCache = None  # clean: ci_sink_fallback
    transformers.SinkCache = DynamicCache


def hybrid_cache_class():
    from transformers.cache_utils import HybridCache  # site: ci_hybrid_import
    return HybridCache


def quant_config_class():
    from transformers import QuantizedCacheConfig  # site: ci_quant_config
    return QuantizedCacheConfig


def probe_module():
    assert DynamicCache is not None and QuantizedCache is not None
    assert SinkCache is None or SinkCache is not DynamicCache


def probe_hybrid():
    assert hybrid_cache_class() is not None


def probe_quant_config():
    assert quant_config_class() is not None
