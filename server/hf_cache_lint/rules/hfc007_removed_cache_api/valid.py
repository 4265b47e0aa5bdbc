"""HFC007 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc007_removed_cache_api.examples import _GEN, _LOAD

VALID: tuple[Valid, ...] = (
    Valid(
        "try:\n    from transformers import HybridCache\nexcept ImportError:  # transformers 5.x\n"
        "    HybridCache = None\n" + _LOAD,
        note="an import whose ImportError is handled",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n\n"
        'if version.parse(transformers.__version__) < version.parse("5.0.0"):\n'
        "    from transformers import SlidingWindowCache\n" + _LOAD,
        note="an import only under a version test that excludes 5.x",
    ),
    Valid(
        _LOAD + _GEN + "cache = out.past_key_values\n"
        'legacy = cache.to_legacy_cache() if hasattr(cache, "to_legacy_cache") else cache\n',
        note="`to_legacy_cache()` only where `hasattr` says it exists",
    ),
    Valid(
        "from transformers.cache_utils import SlidingWindowCache\n" + _LOAD,
        note="`SlidingWindowCache` from `transformers.cache_utils`, which 5.x still has",
    ),
    Valid(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from transformers import HybridCache\n" + _LOAD,
        note="an import for type checkers only",
    ),
    Valid(
        "import importlib.metadata\n\n"
        'if importlib.metadata.version("transformers").startswith("4."):\n'
        "    from transformers import OffloadedCache\n" + _LOAD,
        note="a version test on the installed distribution",
    ),
    Valid(
        "import packaging.version\nimport transformers\nfrom transformers import DynamicCache\n\n\n"
        "def as_cache(legacy):\n"
        "    transformers_lt_4_56 = packaging.version.parse(transformers.__version__) < packaging.version.parse(\n"
        '        "4.56.0.dev0"\n    )\n'
        "    if transformers_lt_4_56:\n"
        "        return DynamicCache.from_legacy_cache(legacy)\n"
        "    return DynamicCache(legacy)\n\n\n"
        "cache = as_cache(None)\n",
        note="a removed method under a function-local version flag that excludes the target (as peft does)",
    ),
    Valid(
        _LOAD + _GEN + "cache = out.past_key_values\n"
        'if getattr(cache, "layers", None) is None:  # a 4.x cache without layers\n'
        "    legacy = cache.to_legacy_cache()\n"
        "else:\n"
        "    legacy = tuple((layer.keys, layer.values) for layer in cache.layers)\n",
        note="duck-typed compat code: `to_legacy_cache()` only on a fallback branch that tests the object first",
    ),
)
