"""HFC008 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

_5X = ("5.23.0", "5.24.0")

INVALID: tuple[Invalid, ...] = (
    invalid(
        prelude("DynamicCache") + "cache = DynamicCache()\n"
        "out = model(**inputs, past_key_values=cache, use_cache=True)\ncache.crop(4)\n",
        flagged="cache.crop(4)",
        fixes={"Crop to 4 tokens as 4.x did": ("crop(4)", "crop(min(0, 4 - cache.get_seq_length()))")},
        versions=_5X,
        note="a manual decode step: no generate call",
    ),
    invalid(
        prelude() + "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
        "out.past_key_values.crop(4)\n",
        flagged="out.past_key_values.crop(4)",
        fixes={"Crop to 4 tokens as 4.x did": ("crop(4)", "crop(min(0, 4 - out.past_key_values.get_seq_length()))")},
        versions=_5X,
        note="the cache generate returns",
    ),
)
