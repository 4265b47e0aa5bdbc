"""HFC008 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc008_positive_crop.examples import _KEPT, _SNAPSHOT, GEMMA2
from hf_cache_lint.rules.snippets import prelude

_STEP = "cache = DynamicCache()\nout = model(**inputs, past_key_values=cache, use_cache=True)\n"

VALID: tuple[Valid, ...] = (
    Valid(_SNAPSHOT + _KEPT.format(n=4) + "\n",
          note="the snapshot truncated with 5.x's negative form, guarded by the length (runs on every release)"),
    Valid(GEMMA2 + "cache = DynamicCache()\nmodel(ids, past_key_values=cache, use_cache=True)\ncache.crop(-2)\n",
          note="a cache built without the sliding-window model's config: full layers, which crop on every release"),
    Valid(prelude("DynamicCache") + "cache = DynamicCache(config=model.config)\n"
          "out = model(**inputs, past_key_values=cache, use_cache=True)\ncache.crop(-2)\n",
          note="a Llama's config gives the cache full-attention layers only"),
    Valid(prelude("DynamicCache") + _STEP + "cache.crop(-2)\n",
          note="a negative value removes that many tokens"),
    Valid(prelude("DynamicCache") + _STEP + "n = cache.get_seq_length() - 4\nif n > 0:\n    cache.crop(-n)\n",
          note="5.x's own form, written negative: the count to remove"),
    Valid(prelude("DynamicCache") + _STEP + "try:\n    cache.crop(4)\nexcept ValueError:\n    cache.crop(-1)\n",
          note="a positive crop in a `try` that catches its ValueError: the code expects 5.20+'s refusal"),
    Valid(GEMMA2 + "cache = DynamicCache(config=model.config)\nmodel(ids, past_key_values=cache, use_cache=True)\n"
          "try:\n    cache.crop(-2)\nexcept (ValueError, RuntimeError):\n    cache = DynamicCache(config=model.config)\n",
          note="a rollback past a sliding window in a `try` that catches both releases' errors (4.56-5.14's "
               "ValueError, 5.15+'s RuntimeError) and starts over"),
    Valid(prelude() + "class Window:\n    def crop(self, n):\n        return n\n\n\nWindow().crop(4)\n",
          note="a `crop` of the project's own class"),
    Valid(prelude("DynamicCache") + _STEP + "cache.crop(-cache.get_seq_length())\n"
          + "assert cache.get_seq_length() == 0\n",
          note="a cache emptied by its negative length: the same on every release"),
)
