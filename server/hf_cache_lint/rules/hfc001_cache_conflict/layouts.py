"""HFC001 examples in the layouts real calls are written in (trailing commas, comments after the last
argument, one argument per line): the keyword a fix adds keeps the call valid Python in each of them.
Each runs unchanged under the oracle against real transformers, and so does each fixed text."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

_LOAD = prelude("DynamicCache") + 'model.generation_config.cache_implementation = "static"\n'
_IGNORE = "  # hf-cache-lint: ignore[HFC001]"

LAYOUT_INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5,)\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "max_new_tokens=5,)", "max_new_tokens=5, cache_implementation=None,)"),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5,)",
                "out = model.generate(**inputs, max_new_tokens=5,)"),
            "Ignore HFC001 on this line": ("max_new_tokens=5,)\n", f"max_new_tokens=5,){_IGNORE}\n"),
        },
        note="a trailing comma: the new keyword goes before it",
    ),
    invalid(
        _LOAD + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5  # short, on purpose\n"
        "                     )\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "max_new_tokens=5  #", "max_new_tokens=5, cache_implementation=None  #"),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5",
                "out = model.generate(**inputs, max_new_tokens=5"),
        },
        note="a comment (holding a comma) after the last argument, `)` on the next line",
    ),
    invalid(
        _LOAD + "out = model.generate(\n"
        "    **inputs,\n"
        "    past_key_values=DynamicCache(),\n"
        "    max_new_tokens=5,  # short answers\n"
        ")\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "    max_new_tokens=5,  # short answers\n",
                "    max_new_tokens=5,  # short answers\n    cache_implementation=None,\n"),
            "Remove `past_key_values=`": ("    past_key_values=DynamicCache(),\n", ""),
        },
        note="one argument per line with a trailing comma and a comment: a new line in the same style",
    ),
    invalid(
        _LOAD + "out = model.generate(\n"
        "    **inputs,\n"
        "    past_key_values=DynamicCache(),\n"
        "    max_new_tokens=5  # short answers\n"
        ")\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "    max_new_tokens=5  # short answers\n",
                "    max_new_tokens=5,  # short answers\n    cache_implementation=None\n"),
            "Remove `past_key_values=`": (
                "    **inputs,\n    past_key_values=DynamicCache(),\n", "    **inputs,\n"),
        },
        note="one argument per line, no trailing comma: the comma goes after the argument, not into the comment",
    ),
)
