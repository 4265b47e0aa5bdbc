"""HFC008 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.snippets import prelude

VALID: tuple[Valid, ...] = (
    Valid(
        prelude("DynamicCache") + "cache = DynamicCache()\n"
        "out = model(**inputs, past_key_values=cache, use_cache=True)\ncache.crop(-2)\n",
        note="a negative value removes that many tokens",
    ),
)
