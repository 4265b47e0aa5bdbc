"""HFC001 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.hfc001_cache_conflict.config_examples import CONFIG_INVALID
from hf_cache_lint.rules.snippets import prelude

_LOAD = prelude("DynamicCache", "GenerationConfig")




INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD
        + 'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
                "out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
                'out = model.generate(**inputs, cache_implementation="static")\n',
            ),
            "Remove `cache_implementation=`": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
                "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
            ),
            "Ignore HFC001 on this line": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="static")  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="both in the same call",
    ),
    invalid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "cache = DynamicCache()\n"
        "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n",
        flagged="past_key_values=cache",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5, cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n",
                "out = model.generate(**inputs, max_new_tokens=5)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="set on the model's generation_config earlier",
    ),
    invalid(
        _LOAD + 'gen_kwargs = {"max_new_tokens": 5, "cache_implementation": "offloaded"}\n'
        "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())\n",
                'out = model.generate(**inputs, **{**gen_kwargs, "cache_implementation": None}, '
                "past_key_values=DynamicCache())\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, **gen_kwargs)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="`cache_implementation` in a ** dict literal",
    ),
    invalid(
        _LOAD + "kw = dict(past_key_values=DynamicCache(), max_new_tokens=5)\n"
        'out = model.generate(**inputs, **kw, cache_implementation="static")\n',
        flagged='model.generate(**inputs, **kw, cache_implementation="static")',
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = model.generate(**inputs, **kw, cache_implementation="static")\n',
                "out = model.generate(**inputs, **kw, cache_implementation=None)\n",
            ),
            "Remove `cache_implementation=`": (
                'out = model.generate(**inputs, **kw, cache_implementation="static")\n',
                "out = model.generate(**inputs, **kw)\n",
            ),
            "Ignore HFC001 on this line": (
                'out = model.generate(**inputs, **kw, cache_implementation="static")\n',
                'out = model.generate(**inputs, **kw, cache_implementation="static")  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="the cache arrives through `**kw`: the whole call is flagged",
    ),
    *CONFIG_INVALID,  # cache_implementation from a GenerationConfig (config_examples.py)
    invalid(
        _LOAD + "first = model.generate(**inputs, max_new_tokens=3, return_dict_in_generate=True)\n"
        'model.generation_config.cache_implementation = "static"\n'
        "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3)\n",
        flagged="past_key_values=first.past_key_values",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3)\n",
                "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3, cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3)\n",
                "more = model.generate(first.sequences, max_new_tokens=3)\n",
            ),
            "Ignore HFC001 on this line": (
                "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3)\n",
                "more = model.generate(first.sequences, past_key_values=first.past_key_values, max_new_tokens=3)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="a cache returned by generate, passed back",
    ),
    invalid(
        _LOAD
        + 'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")\n',
        flagged="past_key_values=DynamicCache()",
        versions=("4.57.6",),
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")\n',
                "out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")\n',
                'out = model.generate(**inputs, cache_implementation="hybrid")\n',
            ),
            "Remove `cache_implementation=`": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")\n',
                "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
            ),
            "Ignore HFC001 on this line": (
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")\n',
                'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid")  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note='4.57 raises for an explicit "hybrid" keyword; 5.x resets "hybrid" to None',
    ),
    invalid(
        _LOAD + 'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")\n',
        flagged="cache=DynamicCache()",
        versions=("5.24.0", "5.25.0"),
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")\n',
                "out = model.generate(**inputs, cache=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `cache=`": (
                'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")\n',
                'out = model.generate(**inputs, cache_implementation="static")\n',
            ),
            "Remove `cache_implementation=`": (
                'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")\n',
                "out = model.generate(**inputs, cache=DynamicCache())\n",
            ),
            "Ignore HFC001 on this line": (
                'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")\n',
                'out = model.generate(**inputs, cache=DynamicCache(), cache_implementation="static")  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="`cache=` is the keyword from 5.24; before, generate rejects it as unused (HFC003)",
    ),
    invalid(
        _LOAD + "import os\n\n"
        'use_static = os.environ.get("USE_STATIC", "1") == "1"\n'
        "if use_static:\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        flagged="past_key_values=DynamicCache()",
        severity=Severity.WARNING,
        message_contains="only if `use_static` holds",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5, cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, max_new_tokens=5)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="depends on a flag: a Warning that names it",
    ),
    invalid(
        _LOAD + "\n\ndef continue_chat(model, inputs, cache):\n"
        '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n\n\n'
        "out = continue_chat(model, inputs, DynamicCache())\n",
        flagged="past_key_values=cache",
        fixes={
            "Set `cache_implementation=None` in this call": (
                '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n',
                "    return model.generate(**inputs, past_key_values=cache, cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n',
                '    return model.generate(**inputs, cache_implementation="static")\n',
            ),
            "Remove `cache_implementation=`": (
                '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n',
                "    return model.generate(**inputs, past_key_values=cache)\n",
            ),
            "Ignore HFC001 on this line": (
                '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")\n',
                '    return model.generate(**inputs, past_key_values=cache, cache_implementation="static")  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="inside a function, seen through its caller",
    ),
    invalid(
        _LOAD + "if 1:  # always taken, as Python reads it\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5, "
                "cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, max_new_tokens=5)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)"
                "  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="set under `if 1:`, a branch that is always taken",
    ),
    invalid(
        "from transformers import DynamicCache, EncoderDecoderCache, pipeline\n\n"
        'summarizer = pipeline("summarization", model="google-t5/t5-small")\n'
        "cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\n"
        'out = summarizer("The tower is 324 metres tall.", past_key_values=cache, cache_implementation="static")\n',
        flagged="past_key_values=cache",
        fixes={
            "Set `cache_implementation=None` in this call": ('cache_implementation="static")',
                                                              "cache_implementation=None)"),
            "Remove `past_key_values=`": ("past_key_values=cache, ", ""),
            "Remove `cache_implementation=`": (', cache_implementation="static"', ""),
            "Ignore HFC001 on this line": ('cache_implementation="static")\n',
                                           'cache_implementation="static")  # hf-cache-lint: ignore[HFC001]\n'),
        },
        versions=("4.57.6",),
        runtime={"5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        note="the summarization task hands its call keywords to generate (5.0 removed the task: KeyError)",
    ),
    invalid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "cache = None\n"
        "for turn in range(2):\n"
        '    kwargs = {"past_key_values": cache, "max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False}\n'
        "    if cache is None:\n"
        '        kwargs["cache_implementation"] = None\n'
        "    out = model.generate(**inputs, **kwargs)\n"
        "    cache = DynamicCache()\n",
        flagged="model.generate(**inputs, **kwargs)",
        fixes={
            "Ignore HFC001 on this line": ("(**inputs, **kwargs)\n",
                                           "(**inputs, **kwargs)  # hf-cache-lint: ignore[HFC001]\n"),
        },
        note="the near miss of Local Gemma's chat loop: `cache_implementation=None` only when no cache is passed "
             "(`if cache is None`), so the second turn's cache meets the model's \"static\"; no keyword fix: the dict "
             "holds `cache_implementation` on the first turn, and a keyword beside `**kwargs` would raise TypeError",
    ),
)
