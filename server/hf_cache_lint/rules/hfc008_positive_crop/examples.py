"""HFC008 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

_5X = ("5.23.0", "5.24.0", "5.25.0")
KEEP_TITLE = "Keep the first tokens on every release"
KEEP_LENGTH_TITLE = "Keep the first `{n}` tokens on every release (`{n}` a length)"
FULL_LAYERS_TITLE = "Build the cache without the model's config (full layers: `crop` works on every release)"
EMPTY_TITLE = "Remove every token (`crop` by the negative length: empties the cache on every release)"
# Higgs Audio's cache copy clears the target first with `crop(0)` (4.x: keep no token); the assertion shows 5.14+
# keeping them.
_CLEAR = "cache.crop(0)\n"
_CLEARED = "assert cache.get_seq_length() == 0, \"the cache kept its tokens\"\n"
_STEP = "out = model(**inputs, past_key_values=cache, use_cache=True)\n"
_KEPT = "if cache.get_seq_length() > {n}:\n    cache.crop({n} - cache.get_seq_length())"

# Gemma 2 (sliding window 4096 on the Hub; the oracle's tiny one: 32) prefilled past its window.
GEMMA2 = """import torch
from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("google/gemma-2-2b-it")
ids = torch.randint(3, 300, (1, 4100))
"""
_PREFILL = "model(ids, past_key_values=cache, use_cache=True)\n"

# A remote-code model's cache kept only where an `isinstance(cache, DynamicCache)` test lets it through (MiniCPM-o's
# speculative snapshot): on one path the test's cache, on the other the model's own value as it came.
_SNAPSHOT = (prelude("DynamicCache").replace('from_pretrained("meta-llama/Llama-3.2-1B")',
                                             'from_pretrained("meta-llama/Llama-3.2-1B", trust_remote_code=True)')
             + "\n\ndef as_dynamic(past):\n    if isinstance(past, DynamicCache):\n        return past\n"
               "    return past\n\n\ndef snapshot_cache(past):\n    cache = as_dynamic(past)\n"
               "    if isinstance(cache, DynamicCache):\n        return cache\n    return None\n\n\n"
               "cache = snapshot_cache(model(**inputs, use_cache=True).past_key_values)\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        _SNAPSHOT + "cache.crop(4)\n",
        flagged="cache.crop(4)",
        fixes={KEEP_TITLE: ("cache.crop(4)", _KEPT.format(n=4))},
        versions=_5X,
        portable=True,
        note="a remote-code model's cache that an `isinstance(cache, DynamicCache)` test let through (a speculative "
             "snapshot truncated back to its length)",
    ),
    invalid(
        prelude("DynamicCache") + "cache = DynamicCache()\n" + _STEP + "cache.crop(4)\n",
        flagged="cache.crop(4)",
        fixes={KEEP_TITLE: ("cache.crop(4)", _KEPT.format(n=4))},
        versions=_5X,
        portable=True,
        note="a manual decode step: no generate call",
    ),
    invalid(
        prelude() + "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
        "out.past_key_values.crop(4)\n",
        flagged="out.past_key_values.crop(4)",
        fixes={KEEP_TITLE: ("out.past_key_values.crop(4)",
                            "if out.past_key_values.get_seq_length() > 4:\n"
                            "    out.past_key_values.crop(4 - out.past_key_values.get_seq_length())")},
        versions=_5X,
        portable=True,
        note="the cache generate returns",
    ),
    invalid(
        prelude("DynamicCache") + "cache = DynamicCache()\n" + _STEP
        + "prefix_len = inputs['input_ids'].shape[1] - 1\ncache.crop(prefix_len)\n",
        flagged="cache.crop(prefix_len)",
        fixes={KEEP_LENGTH_TITLE.format(n="prefix_len"): ("cache.crop(prefix_len)", _KEPT.format(n="prefix_len"))},
        versions=_5X,
        severity=Severity.WARNING,
        portable=True,
        note="a length computed at run time (speculative decoding's rollback): a Warning, its sign unseen",
    ),
    invalid(
        prelude("DynamicCache") + "cache = DynamicCache()\n" + _STEP
        + "shared = 0\nfor a, b in zip([1, 5, 9, 14], [1, 5, 7, 8]):\n    if a != b:\n        break\n"
          "    shared += 1\ncache.crop(shared)\n",
        flagged="cache.crop(shared)",
        fixes={KEEP_LENGTH_TITLE.format(n="shared"): ("cache.crop(shared)", _KEPT.format(n="shared"))},
        versions=_5X,
        severity=Severity.WARNING,
        portable=True,
        note="a prefix cache cut to the tokens two prompts share, counted in a loop (`shared += 1`): a Warning",
    ),
    invalid(
        GEMMA2 + "cache = DynamicCache(config=model.config)\n" + _PREFILL + "cache.crop(-2)\n",
        flagged="cache.crop(-2)",
        fixes={FULL_LAYERS_TITLE: ("DynamicCache(config=model.config)", "DynamicCache()")},
        severity=Severity.INFO,
        portable=True,
        note="a rollback on a cache built with a sliding-window model's config, past the window: 4.57.6 raises a "
             "ValueError, 5.15+ a RuntimeError; without the config the cache has full layers",
    ),
    invalid(
        GEMMA2 + "cache = DynamicCache(config=model.config)\n" + _PREFILL
        + "try:\n    cache.crop(-2)\nexcept RuntimeError:\n    cache = DynamicCache(config=model.config)\n",
        flagged="cache.crop(-2)",
        fixes={FULL_LAYERS_TITLE: ("cache = DynamicCache(config=model.config)\nmodel(",
                                   "cache = DynamicCache()\nmodel(")},
        versions=("4.57.6",),
        severity=Severity.INFO,
        portable=True,
        note="a rollback in a `try` that catches 5.15+'s RuntimeError only: 4.57.6 raises a ValueError, which "
             "escapes it",
    ),
    invalid(
        GEMMA2 + "cache = model(ids, use_cache=True).past_key_values\ncache.crop(-2)\n",
        flagged="cache.crop(-2)",
        fixes={},
        severity=Severity.INFO,
        note="the cache a Gemma 2 forward returns has sliding-window layers",
    ),
    invalid(
        prelude() + "\n\nclass Session:\n    def __init__(self):\n        self.cache = None\n\n"
        "    def step(self, keep):\n"
        "        if hasattr(self.cache, \"crop\"):\n            self.cache.crop(keep)\n"
        "        out = model(**inputs, past_key_values=self.cache, use_cache=True)\n"
        "        self.cache = out.past_key_values\n\n\n"
        "session = Session()\nsession.step(0)\nsession.step(3)\n",
        flagged="self.cache.crop(keep)",
        fixes={KEEP_TITLE: (
            "            self.cache.crop(keep)\n",
            "            if self.cache.get_seq_length() > keep:\n"
            "                self.cache.crop(keep - self.cache.get_seq_length())\n")},
        versions=_5X,
        note="an attribute that is None until the first forward keeps its cache (guidance's engine): the crop "
             "runs on the cache, on the second call",
    ),
    invalid(
        prelude("DynamicCache") + "\n\nclass Draft(DynamicCache):\n"
        "    def accept(self, keep):\n        self.crop(keep)\n\n\n"
        "cache = Draft()\n" + _STEP + "cache.accept(3)\n",
        flagged="self.crop(keep)",
        fixes={KEEP_TITLE: (
            "        self.crop(keep)\n",
            "        if self.get_seq_length() > keep:\n            self.crop(keep - self.get_seq_length())\n")},
        versions=_5X,
        portable=True,
        note="a `DynamicCache` subclass calling the `crop` it inherits with the length to keep (3, its caller's)",
    ),
    invalid(
        prelude("DynamicCache") + "cache = DynamicCache()\n" + _STEP + _CLEAR + _CLEARED,
        flagged="cache.crop(0)",
        fixes={EMPTY_TITLE: (_CLEAR, "cache.crop(-cache.get_seq_length())\n")},
        versions=_5X,
        portable=True,
        severity=Severity.WARNING,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="`crop(0)` removes none and the cache keeps every token",
        note="`crop(0)` to empty a cache: from 5.14 a no-op (silent: the cache keeps its tokens)",
    ),
)

__all__ = ["INVALID", "Invalid"]
