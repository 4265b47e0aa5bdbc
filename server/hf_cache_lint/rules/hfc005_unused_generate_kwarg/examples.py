"""HFC005 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_LOAD = prelude("DynamicCache")
_MAMBA = prelude(model="MambaForCausalLM", checkpoint=MAMBA)
_PIPE = """from transformers import pipeline

generator = pipeline("text-generation", model="meta-llama/Llama-3.2-1B")
"""




_5X = ("5.23.0", "5.24.0", "5.25.0")
# A prefilled prompt continued by generate with the new tokens only, and their positions (llm-context-cache's
# `generate_with_pkv`): from 5.4 no model's forward takes `cache_position`.
_PREFILLED = ("import torch\n" + prelude("DynamicCache") +
              "cache = DynamicCache()\nmodel(**inputs, past_key_values=cache, use_cache=True)\n"
              'n = inputs["input_ids"].shape[1]\ndelta = torch.tensor([[5, 6]])\n')
_POSITIONS_CALL = ("out = model.generate(input_ids=delta, attention_mask=torch.ones(1, n + 2, dtype=torch.long), "
                   "past_key_values=cache, cache_position=torch.arange(n, n + 2), max_new_tokens=3, "
                   "min_new_tokens=3, do_sample=False)\n")
_TYPO_CALL = "out = model.generate(**inputs, past_key_valyes=DynamicCache(), max_new_tokens=5)\n"
# DeCoRe's DoLa baseline: greedy decoding with `dola_layers=` (on the Hub from 4.56: generate raises).
_DOLA_CALL = ("out = model.generate(inputs.input_ids, do_sample=False, max_new_tokens=3, min_new_tokens=3, "
              "output_logits=True, dola_layers=\"high\", return_dict_in_generate=True)\n")
# DoLa's own `dola_generate`: a wrapper that forwards its `**kwargs` to generate beside `dola_layers=`; the call below
# passes none, so greedy DoLa is what it asks for.
_DOLA_WRAPPER = ("def dola_generate(input_ids, layers, **kwargs):\n"
                 "    return model.generate(input_ids, do_sample=False, max_new_tokens=3, min_new_tokens=3,\n"
                 "                          dola_layers=layers, return_dict_in_generate=True, **kwargs)\n\n\n")

INVALID: tuple[Invalid, ...] = (
    invalid(
        _PREFILLED + _POSITIONS_CALL,
        flagged="model.generate",
        fixes={},
        versions=_5X,
        runtime={"4.57.6": "OK", "5.23.0": "HFC005", "5.24.0": "HFC005", "5.25.0": "HFC005"},
        message_contains="['cache_position']",
        note="`cache_position=` given to generate (continuing a prefilled cache): from 5.4 no model's forward takes "
             "it, so generate refuses it as unused (reported at the call, where it raises)",
    ),
    invalid(
        _PREFILLED + "gen_kwargs = {\"max_new_tokens\": 3, \"min_new_tokens\": 3, \"do_sample\": False}\n"
        "gen_kwargs[\"cache_position\"] = torch.arange(n, n + 2)\n"
        "out = model.generate(input_ids=delta, attention_mask=torch.ones(1, n + 2, dtype=torch.long), "
        "past_key_values=cache, **gen_kwargs)\n",
        flagged="gen_kwargs",
        occurrence=2,
        fixes={},
        versions=_5X,
        message_contains="['cache_position']",
        note="`cache_position` carried in by a `**` dict built in steps",
    ),
    invalid(
        _LOAD + _TYPO_CALL,
        flagged="past_key_valyes=DynamicCache()",
        fixes={
            "Rename to `past_key_values=`": ("past_key_valyes=", "past_key_values="),
            "Ignore HFC005 on this line": (_TYPO_CALL, _TYPO_CALL.rstrip("\n") + "  # hf-cache-lint: ignore[HFC005]\n"),
        },
        message_contains="['past_key_valyes']",
        note="a misspelled cache keyword",
    ),
    invalid(
        _LOAD + 'out = model.generate(**inputs, cache_implmentation="static", max_new_tokens=5)\n',
        flagged='cache_implmentation="static"',
        fixes={"Rename to `cache_implementation=`": ("cache_implmentation=", "cache_implementation=")},
        note="a misspelled `cache_implementation`",
    ),
    invalid(
        _LOAD + "cache = DynamicCache()\nout = model.generate(**inputs, past_key_value=cache, max_new_tokens=5)\n",
        flagged="past_key_value=cache",
        fixes={"Rename to `past_key_values=`": ("past_key_value=", "past_key_values=")},
        note="the singular `past_key_value` (the name inside attention layers)",
    ),
    invalid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache_params\n"
        "out = model.generate(**inputs, cache_param=state, max_new_tokens=5)\n",
        flagged="cache_param=state",
        fixes={"Rename to `cache_params=`": ("cache_param=", "cache_params=")},
        note="Mamba's `cache_params` without the s",
    ),
    invalid(
        _LOAD + "out = model.generate(**inputs, use_cahce=True, max_new_tokens=5)\n",
        flagged="use_cahce=True",
        fixes={"Rename to `use_cache=`": ("use_cahce=", "use_cache=")},
        note="a misspelled `use_cache`",
    ),
    invalid(
        _PIPE + 'result = generator("The capital of France is", generate_kwargs={"max_new_tokens": 5, "do_sample": False})\n',
        flagged='generate_kwargs={"max_new_tokens": 5, "do_sample": False}',
        fixes={"Unpack `generate_kwargs` into the call": (
            'generate_kwargs={"max_new_tokens": 5, "do_sample": False}', "max_new_tokens=5, do_sample=False")},
        message_contains="['generate_kwargs']",
        note="`generate_kwargs=` on a text-generation pipeline",
    ),
    invalid(
        _PIPE + 'settings = {"max_new_tokens": 5, "cache_implementation": "static"}\n'
        'result = generator("The capital of France is", generate_kwargs=settings)\n',
        flagged="generate_kwargs=settings",
        fixes={"Unpack `generate_kwargs` into the call": ("generate_kwargs=settings", "**settings")},
        note="`generate_kwargs=` given a dict variable",
    ),
    invalid(
        _LOAD + "out = model.generate(**inputs, max_new_tokens=5, use_model_defaults=False)\n",
        flagged="use_model_defaults=False",
        fixes={"Remove `use_model_defaults=`": (", use_model_defaults=False", "")},
        versions=_5X,
        message_contains="['use_model_defaults']",
        note="`use_model_defaults=`, a parameter of generate that 5.0 removed",
    ),
    invalid(
        _LOAD + "out = model.generate(**inputs, return_legacy_cache=True, max_new_tokens=5)\n",
        flagged="return_legacy_cache=True",
        fixes={"Remove `return_legacy_cache=`": ("return_legacy_cache=True, ", "")},
        versions=_5X,
        message_contains="removed from generate in transformers 5.0.0",
        note="`return_legacy_cache=`, a GenerationConfig field that 5.0 removed",
    ),
    Invalid(
        _LOAD + 'settings = {"max_new_tokens": 5}\nsettings["use_model_defaults"] = False\n'
        "out = model.generate(**inputs, **settings)\n",
        flagged="settings",
        occurrence=2,
        versions=_5X,
        message_contains="['use_model_defaults']",
        note="a removed keyword set on a `**` dict built in steps",
    ),
    Invalid(
        _LOAD + "\n\nclass Evaluator:\n    def __init__(self, max_new_tokens=5):\n"
        "        self.gen_kwargs = dict(max_new_tokens=max_new_tokens, do_sample=False, return_legacy_cache=True)\n\n"
        "    def run(self):\n        return model.generate(**inputs, **self.gen_kwargs)\n\n\n"
        "out = Evaluator().run()\n",
        flagged="self.gen_kwargs",
        occurrence=1,
        versions=_5X,
        message_contains="(set at line 10)",
        note="a removed keyword in a dict set in `__init__` and unpacked into generate by a method",
    ),
    Invalid(
        _LOAD + 'GEN = {"max_new_tokens": 5, "past_key_valyes": DynamicCache()}\n\n\n'
        "def complete():\n    return model.generate(**inputs, **GEN)\n\n\nout = complete()\n",
        flagged="GEN",
        occurrence=1,
        message_contains="['past_key_valyes']",
        note="a misspelled cache keyword in a module-level dict a function unpacks",
    ),
    invalid(
        "import os\n\nimport transformers\nfrom packaging import version\n" + _LOAD
        + 'if version.parse(transformers.__version__) >= version.parse(os.environ.get("OLDEST_TESTED", "4.40")):\n'
        "    out = model.generate(**inputs, max_new_tokens=5, use_model_defaults=False)\n",
        flagged="use_model_defaults=False",
        fixes={"Remove `use_model_defaults=`": (", use_model_defaults=False", "")},
        versions=_5X,
        severity=Severity.WARNING,
        message_contains="only where the version test",
        note="under a version test the linter cannot decide (a bound read from the environment): a Warning",
    ),
    # Keys of a GenerationConfig built from a dict and passed as `generation_config=` (issue 29 item 5).
    Invalid(
        "from transformers import GenerationConfig\n" + _LOAD
        + 'settings = {"max_new_tokens": 5}\nsettings["use_model_defaults"] = False\n'
        "config = GenerationConfig(**settings)\nout = model.generate(**inputs, generation_config=config)\n",
        flagged='settings["use_model_defaults"] = False',
        versions=("4.57.6",),
        runtime={"4.57.6": "HFC005", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="Argument `use_model_defaults` is not a valid argument of `GenerationConfig`",
        note="a generate-only keyword put in a GenerationConfig (4.5x: the config refuses it; 5.x keeps it as "
             "a plain attribute)",
    ),
    Invalid(
        "from transformers import GenerationConfig\n" + _LOAD
        + "\n\nclass Harness:\n    def __init__(self):\n"
        "        self.config = GenerationConfig(max_new_tokens=5, return_legacy_cache=True,\n"
        "                                       return_dict_in_generate=True)\n\n"
        "    def run(self):\n        return model.generate(**inputs, generation_config=self.config)\n\n\n"
        "out = Harness().run()\n"
        'assert isinstance(out.past_key_values, tuple), "a Cache came back, not legacy tuples"\n',
        flagged="return_legacy_cache=True",
        versions=_5X,
        severity=Severity.WARNING,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="ignored by generate since transformers 5.0.0",
        note="`return_legacy_cache` on a GenerationConfig built in `__init__`: 5.x ignores it silently (the "
             "assertion shows a Cache comes back)",
    ),
    Invalid(
        "from transformers import GenerationConfig, StaticCache\n" + _LOAD
        + "\n\ndef make_config(static=True):\n"
        '    settings = {"max_new_tokens": 5, "do_sample": False}\n'
        '    if static:\n        settings["cache_implmentation"] = "static"\n'
        "    return GenerationConfig(**settings)\n\n\n"
        "out = model.generate(**inputs, generation_config=make_config(), return_dict_in_generate=True)\n"
        'assert isinstance(out.past_key_values, StaticCache), "no static cache"\n',
        flagged='settings["cache_implmentation"] = "static"',
        severity=Severity.WARNING,
        runtime="OTHER",
        message_contains="a typo of `cache_implementation`",
        note="a misspelled `cache_implementation` key in a config's settings dict: kept as an attribute generate "
             "never reads (the assertion shows no static cache is built, on every release)",
    ),
    # Keys of the model's own config (assigned, updated, written) and of configs loaded or built from a dict.
    Invalid(
        "from transformers import GenerationConfig\n" + _LOAD
        + "model.generation_config = GenerationConfig(max_new_tokens=5, use_model_defaults=False)\n"
        "out = model.generate(**inputs)\n",
        flagged="use_model_defaults=False",
        versions=("4.57.6",),
        runtime={"4.57.6": "HFC005", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="the model's generation_config",
        note="a generate-only keyword in a config assigned to `model.generation_config` (read by a call "
             "passing none)",
    ),
    Invalid(
        _LOAD + "model.generation_config.update(return_legacy_cache=True)\n"
        "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
        'assert isinstance(out.past_key_values, tuple), "a Cache came back, not legacy tuples"\n',
        flagged="return_legacy_cache=True",
        versions=_5X,
        severity=Severity.WARNING,
        runtime={"4.57.6": "OK", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="is given to `update()` of the model's generation_config",
        note="`return_legacy_cache` given to `update()` of the model's config: 5.x ignores it silently",
    ),
    Invalid(
        "from transformers import StaticCache\n" + _LOAD
        + 'model.generation_config.cache_implmentation = "static"\n'
        "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True)\n"
        'assert isinstance(out.past_key_values, StaticCache), "no static cache"\n',
        flagged='model.generation_config.cache_implmentation = "static"',
        severity=Severity.WARNING,
        runtime="OTHER",
        message_contains="is set on the model's generation_config",
        note="a misspelled `cache_implementation` written as an attribute of the model's config: a plain "
             "attribute generate never reads, on every release",
    ),
    Invalid(
        "from transformers import GenerationConfig, StaticCache\n" + _LOAD
        + 'overrides = {"max_new_tokens": 5, "cache_implmentation": "static"}\n'
        'config = GenerationConfig.from_pretrained("ckpt", **overrides)\n'
        "out = model.generate(**inputs, generation_config=config, return_dict_in_generate=True)\n"
        'assert isinstance(out.past_key_values, StaticCache), "no static cache"\n',
        flagged='"cache_implmentation"',
        files={"ckpt/generation_config.json": '{"max_new_tokens": 5}\n'},
        severity=Severity.WARNING,
        runtime="OTHER",
        message_contains="a typo of `cache_implementation`",
        note="a misspelled key among `GenerationConfig.from_pretrained(path, **overrides)`: the keywords reach "
             "the constructor",
    ),
    Invalid(
        "from transformers import GenerationConfig\n" + _LOAD
        + 'config = GenerationConfig.from_dict({"max_new_tokens": 5, "use_model_defaults": False})\n'
        "out = model.generate(**inputs, generation_config=config)\n",
        flagged='"use_model_defaults"',
        versions=("4.57.6",),
        runtime={"4.57.6": "HFC005", "5.23.0": "OK", "5.24.0": "OK", "5.25.0": "OK"},
        message_contains="Argument `use_model_defaults` is not a valid argument of `GenerationConfig`",
        note="a generate-only keyword in `GenerationConfig.from_dict({...})`",
    ),
    Invalid(
        "from transformers import StaticCache\n" + _LOAD
        + 'unused = model.generation_config.update(cache_implmentation="static", max_new_tokens=5)\n'
        "out = model.generate(**inputs, return_dict_in_generate=True)\n"
        'assert isinstance(out.past_key_values, StaticCache), "no static cache"\n',
        flagged='cache_implmentation="static"',
        severity=Severity.WARNING,
        runtime="OTHER",
        message_contains="`update()` sets only the config's fields",
        note="a misspelled `cache_implementation` given to `update()` of the model's config: returned unused, "
             "nothing set, on every release",
    ),
    invalid(
        _LOAD + _DOLA_CALL,
        flagged='dola_layers="high"',
        fixes={},
        message_contains="requires `trust_remote_code=True` in your `generate` call",
        note="`dola_layers=` on greedy decoding: DoLa moved to a Hub repository in 4.56, generate raises without "
             "`trust_remote_code=True`",
    ),
    invalid(
        _LOAD + _DOLA_WRAPPER + "out = dola_generate(inputs.input_ids, [0, 1])\n",
        flagged="dola_layers=layers",
        fixes={},
        message_contains="requires `trust_remote_code=True` in your `generate` call",
        note="`dola_layers=` beside the wrapper's own `**kwargs`, called with none: greedy DoLa, which generate "
             "refuses from 4.56 without `trust_remote_code=True`",
    ),
)
