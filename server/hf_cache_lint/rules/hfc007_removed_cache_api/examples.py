"""HFC007 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_5X = ("5.23.0", "5.24.0")
_LOAD = prelude()
_GEN = "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
_FROM_LEGACY = "cache = DynamicCache.from_legacy_cache(legacy)\n"

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
        runtime={"5.23.0": "OK", "5.24.0": "OK"},
        message_contains="only if `len(sys.argv) > 1` holds",
        note="under a condition the linter cannot decide: a Warning (the oracle runs it without arguments)",
    ),
)
