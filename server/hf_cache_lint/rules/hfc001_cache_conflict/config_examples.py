"""HFC001 examples where `cache_implementation` comes from a GenerationConfig (passed, built, updated, copied,
loaded); each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import prelude

_LOAD = prelude("DynamicCache", "GenerationConfig")

CONFIG_INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + "cache = DynamicCache()\n"
        "out = model.generate(**inputs, past_key_values=cache,\n"
        '                     generation_config=GenerationConfig(cache_implementation="static", max_new_tokens=5))\n',
        flagged="past_key_values=cache",
        fixes={
            "Set `cache_implementation=None` in this call": (
                '                     generation_config=GenerationConfig(cache_implementation="static", max_new_tokens=5))\n',
                '                     generation_config=GenerationConfig(cache_implementation="static", max_new_tokens=5), cache_implementation=None)\n',
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=cache,\n",
                "out = model.generate(**inputs,\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, past_key_values=cache,\n",
                "out = model.generate(**inputs, past_key_values=cache,  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="a GenerationConfig passed by keyword",
    ),
    invalid(
        _LOAD + 'config = GenerationConfig(cache_implementation="static", max_new_tokens=5)\n'
        'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache())\n',
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache())\n',
                'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache(), cache_implementation=None)\n',
            ),
            "Remove `past_key_values=`": (
                'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache())\n',
                'out = model.generate(inputs["input_ids"], config)\n',
            ),
            "Ignore HFC001 on this line": (
                'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache())\n',
                'out = model.generate(inputs["input_ids"], config, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="the config as generate's second positional argument",
    ),
    invalid(
        _LOAD + "config = GenerationConfig(max_new_tokens=5)\n"
        'config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="an attribute set on a config built earlier",
    ),
    invalid(
        _LOAD + 'model.generation_config.update(cache_implementation="static")\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        flagged="past_key_values=DynamicCache()",
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
        note="`update()` on the model's config",
    ),
    invalid(
        _LOAD
        + 'model.generation_config = GenerationConfig(cache_implementation="static", max_new_tokens=5)\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="the model's config replaced",
    ),
    invalid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "config = GenerationConfig(cache_implementation=None, max_new_tokens=5)\n"
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="`GenerationConfig(cache_implementation=None)` inherits the model's value; it does not clear it",
    ),
    invalid(
        _LOAD + "import copy\n\n"
        "base = GenerationConfig(max_new_tokens=5)\n"
        'base.cache_implementation = "static"\n'
        "config = copy.deepcopy(base)\n"
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="a deep copy keeps the value",
    ),
    invalid(
        _LOAD + 'config = GenerationConfig.from_pretrained("ckpt", cache_implementation="static")\n'
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        files={"ckpt/generation_config.json": '{"max_new_tokens": 5}\n'},
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="`GenerationConfig.from_pretrained(..., cache_implementation=...)`",
    ),
    invalid(
        _LOAD + 'overrides = {"max_new_tokens": 5}\noverrides["cache_implementation"] = "static"\n'
        "config = GenerationConfig.from_pretrained(\"ckpt\", **overrides)\n"
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        files={"ckpt/generation_config.json": '{"max_new_tokens": 5}\n'},
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
        },
        note="`GenerationConfig.from_pretrained(path, **overrides)`: the dict's keys reach the constructor",
    ),
    invalid(
        _LOAD + 'config = GenerationConfig.from_dict({"max_new_tokens": 5, "cache_implementation": "static"})\n'
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
                "out = model.generate(**inputs, generation_config=config)\n",
            ),
        },
        note="`GenerationConfig.from_dict({...})`",
    ),
)
