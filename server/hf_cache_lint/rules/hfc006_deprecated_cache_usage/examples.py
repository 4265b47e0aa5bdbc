"""HFC006 examples that must be flagged; each runs unchanged under the oracle against real transformers,
which must warn (FutureWarning or a logged deprecation) and raise nothing."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_LLAMA = prelude("DynamicCache")
_CONFIG = prelude("GenerationConfig")
_MAMBA = prelude(model="MambaForCausalLM", checkpoint=MAMBA)
_524 = ("5.24.0", "5.25.0")

_PKV_CALL = "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n"
_SLIDING_CALL = 'out = model.generate(**inputs, cache_implementation="sliding_window", max_new_tokens=5)\n'


def _ignore(line: str) -> tuple[str, str]:
    return line, line.rstrip("\n") + "  # hf-cache-lint: ignore[HFC006]\n"


INVALID: tuple[Invalid, ...] = (
    invalid(
        _LLAMA + _PKV_CALL,
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Rename to `cache=`": ("past_key_values=DynamicCache()", "cache=DynamicCache()"),
            "Ignore HFC006 on this line": _ignore(_PKV_CALL),
        },
        versions=_524,
        message_contains="`past_key_values=` is deprecated in transformers 5.2",
        note="`past_key_values=` in 5.24 (FutureWarning; generate reads it as `cache=`)",
    ),
    invalid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache\n"
        "out = model.generate(**inputs, cache_params=state, max_new_tokens=5)\n",
        flagged="cache_params=state",
        fixes={"Rename to `cache=`": ("cache_params=state", "cache=state")},
        versions=_524,
        note="Mamba's `cache_params=` in 5.24",
    ),
    invalid(
        _LLAMA + "out = model.generate(**inputs, past_key_values=None, max_new_tokens=5)\n",
        flagged="past_key_values=None",
        fixes={"Rename to `cache=`": ("past_key_values=None", "cache=None")},
        versions=_524,
        note="even `past_key_values=None` warns in 5.24: the name is what is deprecated",
    ),
    invalid(
        "from transformers import DynamicCache, pipeline\n\n"
        "generator = pipeline(\"text-generation\", model=\"meta-llama/Llama-3.2-1B\")\n"
        "result = generator(\"The capital of France is\", past_key_values=DynamicCache(), max_new_tokens=5)\n",
        flagged="past_key_values=DynamicCache()",
        fixes={"Rename to `cache=`": ("past_key_values=DynamicCache()", "cache=DynamicCache()")},
        versions=_524,
        note="a text-generation pipeline hands the keyword to generate",
    ),
    invalid(
        _CONFIG + _SLIDING_CALL,
        flagged='"sliding_window"',
        fixes={
            'Replace with `"static"`': ('"sliding_window"', '"static"'),
            "Ignore HFC006 on this line": _ignore(_SLIDING_CALL),
        },
        message_contains='as `"static"` does',
        note="a deprecated `cache_implementation` name: it builds the StaticCache `static` builds (logged)",
    ),
    invalid(
        _CONFIG + "model.generation_config.cache_implementation = 'hybrid_chunked'\n"
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged="'hybrid_chunked'",
        fixes={"Replace with `'static'`": ("'hybrid_chunked'", "'static'")},
        note="on the model's generation config (the fix keeps the quote style)",
    ),
    invalid(
        _CONFIG + 'config = GenerationConfig(max_new_tokens=5, cache_implementation="hybrid")\n'
        "out = model.generate(**inputs, generation_config=config)\n",
        flagged='"hybrid"',
        fixes={"Replace with `None`": ('"hybrid"', "None")},
        # The fix is pinned for 5.x (the first version); on 4.57 it is `"static"`, which `hybrid` still builds.
        versions=("5.23.0", "5.24.0", "5.25.0", "4.57.6"),
        runtime={"4.57.6": "HFC006", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="is deprecated in transformers",
        note="`hybrid` is deprecated: 4.57 still builds a StaticCache from it (logged); 5.x resets it to None "
             "without a word, so it does nothing",
    ),
)
