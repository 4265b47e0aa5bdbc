"""HFC007 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_5X = ("5.23.0", "5.24.0", "5.25.0")
_LOAD = prelude()
_GEN = "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
_FROM_LEGACY = "cache = DynamicCache.from_legacy_cache(legacy)\n"

_SEQ_LEN = "seq_len = out.past_key_values[0][0].shape[2]\n"
_PAIR = "keys, values = past[0]\n"
_LOOP = "for keys, values in out.past_key_values:\n    print(keys.shape)\n"
_MAX_SHAPE = "limit = out.past_key_values.get_max_cache_shape()\n"
_STATIC = "cache = StaticCache(config=model.config, max_cache_len=32)\n"
_MAX_LEN = "limit = cache.max_cache_len\n"
_KEYS = "keys = out.past_key_values.key_cache[0]\n"
_BUILT = prelude("DynamicCache") + "cache = DynamicCache()\n"

INVALID: tuple[Invalid, ...] = (
    Invalid(
        prelude("HybridCache") + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged="HybridCache",
        versions=_5X,
        message_contains="ImportError: cannot import name 'HybridCache' from 'transformers'",
        note="a 4.x cache class imported from `transformers`",
    ),
    Invalid(
        "from transformers.models.mamba.modeling_mamba import MambaCache\n"
        + prelude(model="MambaForCausalLM", checkpoint=MAMBA) + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged="MambaCache",
        versions=_5X,
        note="`MambaCache` from the Mamba modeling module",
    ),
    Invalid(
        "import transformers\n\n" + _LOAD + "cache_class = transformers.SinkCache\n",
        flagged="SinkCache",
        versions=_5X,
        message_contains="AttributeError: module transformers has no attribute SinkCache",
        note="a removed class read as an attribute of the module",
    ),
    Invalid(
        _LOAD + _GEN + "legacy = out.past_key_values.to_legacy_cache()\n",
        flagged="to_legacy_cache",
        versions=_5X,
        note="`to_legacy_cache()` on the cache generate returned",
    ),
    invalid(
        prelude("DynamicCache") + _GEN
        + "legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n" + _FROM_LEGACY,
        flagged="from_legacy_cache",
        fixes={"Use `DynamicCache(...)`": (_FROM_LEGACY, "cache = DynamicCache(legacy)\n")},
        versions=_5X,
        note="`DynamicCache.from_legacy_cache(...)`: the constructor takes the tuple in 4.x and 5.x",
    ),
    Invalid(
        "import sys\n\n" + _LOAD + "if len(sys.argv) > 1:\n    from transformers import OffloadedStaticCache\n",
        flagged="OffloadedStaticCache",
        versions=_5X,
        severity=Severity.WARNING,
        runtime={"5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="only if `len(sys.argv) > 1` holds",
        note="under a condition the linter cannot decide: a Warning (the oracle runs it without arguments)",
    ),
    # Reads of the cache generate returned (or one built here) through what 5.x removed.
    invalid(
        _LOAD + _GEN + _SEQ_LEN,
        flagged="out.past_key_values[0]",
        fixes={"Use `.layers[0].keys`": (_SEQ_LEN, "seq_len = out.past_key_values.layers[0].keys.shape[2]\n")},
        versions=_5X,
        message_contains="TypeError: 'DynamicCache' object is not subscriptable",
        note="legacy-tuple indexing of the returned cache (`past_key_values[0][0].shape[2]`, the 4.x sequence length)",
    ),
    invalid(
        _LOAD + _GEN + "past = out.past_key_values\n" + _PAIR,
        flagged="past[0]",
        fixes={"Use `.layers[0]`": (_PAIR, "keys, values = (past.layers[0].keys, past.layers[0].values)\n")},
        versions=_5X,
        note="a name bound to the returned cache, indexed for the `(keys, values)` pair of layer 0",
    ),
    invalid(
        _LOAD + _GEN + _LOOP,
        flagged="out.past_key_values",
        fixes={"Iterate `.layers`": (_LOOP, "for keys, values in ((layer.keys, layer.values) for layer in "
                                            "out.past_key_values.layers):\n    print(keys.shape)\n")},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},  # a plain ValueError: see own_cases
        message_contains="ValueError: too many values to unpack (expected 2)",
        note="`for k, v in cache:`: a 5.x DynamicCache yields `(keys, values, sliding_window_tensor)`",
    ),
    invalid(
        _LOAD + _GEN + _MAX_SHAPE,
        flagged="get_max_cache_shape",
        fixes={"Use `get_max_length()`": (_MAX_SHAPE, "limit = out.past_key_values.get_max_length()\n")},
        versions=_5X,
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'get_max_cache_shape'",
        note="`get_max_cache_shape()`: still in 5.0 (deprecated in 5.18), gone from 5.20",
    ),
    invalid(
        prelude("StaticCache") + _STATIC + _MAX_LEN,
        flagged="max_cache_len",
        fixes={"Use `get_max_length()`": (_MAX_LEN, "limit = cache.get_max_length()\n")},
        versions=_5X,
        message_contains="AttributeError: 'StaticCache' object has no attribute 'max_cache_len'",
        note="`StaticCache.max_cache_len`: still in 5.0 (deprecated in 5.18), gone from 5.20",
    ),
    # Gone before 4.57 (code written for 4.4x breaks there; first release without each read from the wheels).
    invalid(
        _LOAD + _GEN + _KEYS,
        flagged="key_cache",
        fixes={"Use `.layers[0].keys`": (_KEYS, "keys = out.past_key_values.layers[0].keys\n")},
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
        note="`cache.key_cache[i]`: the per-layer lists are gone from 4.56 (the layers hold the tensors)",
    ),
    Invalid(
        _BUILT + "cache.value_cache[0] = None\n",
        flagged="value_cache",
        note="`cache.value_cache[i] = v` reads `value_cache` first, so the store raises too",
    ),
    Invalid(
        _BUILT + "cache.key_cache = [None]\nfirst = cache.key_cache[0]\n",
        flagged="key_cache",
        severity=Severity.WARNING,
        runtime="OK",
        message_contains="the assignment raises nothing",
        note="`cache.key_cache = [...]` binds a plain attribute the layers never read (silent; the read of that "
             "list after it raises nothing either, so it is not reported)",
    ),
    Invalid(
        _BUILT + "seen = cache.seen_tokens\n",
        flagged="seen_tokens",
        message_contains="AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
        note="`seen_tokens`: gone from 4.54",
    ),
    Invalid(
        _BUILT + "usable = cache.get_usable_length(1)\n",
        flagged="get_usable_length",
        note="`get_usable_length()`: gone from 4.54",
    ),
    Invalid(
        "from transformers.cache_utils import QuantizedCacheConfig\n\n" + _LOAD,
        flagged="QuantizedCacheConfig",
        message_contains="ImportError: cannot import name 'QuantizedCacheConfig' from 'transformers.cache_utils'",
        note="`QuantizedCacheConfig`: gone from 4.56 (the settings are `QuantizedCache`'s keywords)",
    ),
    Invalid(
        "from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache\n\n" + _LOAD,
        flagged="HybridMambaAttentionDynamicCache",
        versions=_5X,
        note="Jamba's own cache class: in its modeling module up to 5.4, gone from 5.5",
    ),
    Invalid(
        prelude("QuantizedCache") + "import torch\n\n"
        'cache = QuantizedCache(backend="quanto", config=model.config, nbits=4, compute_dtype=torch.float16)\n',
        flagged="compute_dtype",
        runtime="OTHER",  # a plain TypeError
        message_contains="TypeError: QuantizedCache.__init__() got an unexpected keyword argument 'compute_dtype'",
        note="a constructor keyword the release's `__init__` does not take (`QuantizedCacheConfig`'s, before 4.56)",
    ),
)
