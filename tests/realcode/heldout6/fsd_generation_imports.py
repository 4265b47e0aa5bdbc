"""Fuzzy speculative decoding's generation module, a fork of transformers' `generation/utils.py` written against
4.4x: it imports every cache class the forked `generate` can set up (quantized, hybrid, Mamba, offloaded, sliding
window, static) from `transformers.cache_utils` at the top of the module, before its own candidate generator and
model classes.

Provenance (mechanisms read; this code is written here, not copied):
- maxholsman/fsd @3ffc532e7f2d4c02b22acc80b7edcf9bbb43c4d9 fsd_utils.py (`from transformers.cache_utils import (
  Cache, DynamicCache, EncoderDecoderCache, HQQQuantizedCache, HybridCache, MambaCache, OffloadedCache,
  QuantizedCacheConfig, QuantoQuantizedCache, SlidingWindowCache, StaticCache)`, then the forked generation
  mixin that maps `cache_implementation` values to those classes)
Reduced: the module keeps the import and the class table the fork builds from it; the forked mixin, the other
imports (private candidate-generator helpers, `is_quanto_available`) and the FSD candidate generator are left out
(tests/realcode/heldout6/fsd_csqa_eval.py holds the evaluation script).
"""

from transformers.cache_utils import (  # site: fs_cache_imports
    Cache,
    DynamicCache,
    EncoderDecoderCache,
    HQQQuantizedCache,
    HybridCache,
    MambaCache,
    OffloadedCache,
    QuantizedCacheConfig,
    QuantoQuantizedCache,
    SlidingWindowCache,
    StaticCache,
)

NEED_SETUP_CACHE_CLASSES_MAPPING = {"static": StaticCache, "sliding_window": SlidingWindowCache,
                                    "hybrid": HybridCache, "mamba": MambaCache}
QUANT_BACKEND_CLASSES_MAPPING = {"quanto": QuantoQuantizedCache, "HQQ": HQQQuantizedCache}


def probe_module():
    assert "static" in NEED_SETUP_CACHE_CLASSES_MAPPING
