"""HFC001 examples for the routes real code takes: classes, handlers, pipelines, partial, threads,
wrappers and checkpoints. Each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.hfc001_cache_conflict.examples import _LOAD

_CKPT = {
    "ckpt/config.json": "{}\n",
    "ckpt/generation_config.json": '{\n  "cache_implementation": "static",\n  "max_new_tokens": 5\n}\n',
}

_PARTIAL_OVER_GENERATE = (
    'import functools\n\nmodel.generate = functools.partial(model.generate, cache_implementation="static")\n')
# A flag the oracle's run sets (no environment variable: True), the linter cannot decide.
_USE_STATIC = 'import functools\nimport os\n\nuse_static = os.environ.get("USE_STATIC", "1") == "1"\n'
_PARTIAL_IN_BRANCH = '    model.generate = functools.partial(model.generate, cache_implementation="static")\n'
_CALL_5 = "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n"
# The fix each branch-replacement example offers: clear the pre-bound value in the call itself.
_CLEAR_IN_CALL_5 = {"Set `cache_implementation=None` in this call": (
    _CALL_5, _CALL_5.replace("max_new_tokens=5)", "max_new_tokens=5, cache_implementation=None)"))}
# A decorator over generate: the inner function calls the `fn` it captured (a closure).
_DECORATOR = (
    "import functools\n\n\n"
    "def {name}(fn):\n"
    "    @functools.wraps(fn)\n"
    "    def inner(*args, **kwargs):\n"
    '        kwargs["cache_implementation"] = {value}\n'
    "        return fn(*args, **kwargs)\n"
    "    return inner\n")
# As some fine-tuning libraries' fast-generate wrappers do: set `cache_implementation` over what the caller passed.
_FAST_GENERATE = (
    "import types\n\noriginal_generate = model.generate\n\n\n"
    "def fast_generate(self, *args, **kwargs):\n"
    '    kwargs["cache_implementation"] = "static"\n'
    "    return original_generate(*args, **kwargs)\n")

ROUTES_INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + "\n\nclass Chat:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n"
        '        self.model.generation_config.cache_implementation = "static"\n\n'
        "    def _cache(self):\n"
        "        return DynamicCache()\n\n"
        "    def reply(self, inputs):\n"
        "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5)\n\n\n"
        "Chat(model).reply(inputs)\n",
        flagged="past_key_values=self._cache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5)\n",
                "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5, cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5)\n",
                "        return self.model.generate(**inputs, max_new_tokens=5)\n",
            ),
            "Ignore HFC001 on this line": (
                "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5)\n",
                "        return self.model.generate(**inputs, past_key_values=self._cache(), max_new_tokens=5)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="set in `__init__`, a cache from a helper method",
    ),
    invalid(
        _LOAD + "from transformers import pipeline\n\n"
        'pipe = pipeline("text-generation", model=model, tokenizer=tokenizer, cache_implementation="static")\n'
        'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)\n',
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)\n',
                'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5, cache_implementation=None)\n',
            ),
            "Remove `past_key_values=`": (
                'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)\n',
                'out = pipe("Hello", max_new_tokens=5)\n',
            ),
            "Ignore HFC001 on this line": (
                'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)\n',
                'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)  # hf-cache-lint: ignore[HFC001]\n',
            ),
        },
        note="`cache_implementation` given to the pipeline",
    ),
    invalid(
        _LOAD + "import functools\n\n"
        'generate = functools.partial(model.generate, cache_implementation="static", max_new_tokens=5)\n'
        "out = generate(**inputs, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "out = generate(**inputs, past_key_values=DynamicCache())\n",
                "out = generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None)\n",
            ),
            "Remove `past_key_values=`": (
                "out = generate(**inputs, past_key_values=DynamicCache())\n",
                "out = generate(**inputs)\n",
            ),
            "Ignore HFC001 on this line": (
                "out = generate(**inputs, past_key_values=DynamicCache())\n",
                "out = generate(**inputs, past_key_values=DynamicCache())  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="`functools.partial(model.generate, ...)`",
    ),
    invalid(
        _LOAD + "import threading\n\n"
        'kwargs = dict(inputs, past_key_values=DynamicCache(), cache_implementation="static", max_new_tokens=5)\n'
        "worker = threading.Thread(target=model.generate, kwargs=kwargs)\n"
        "worker.start()\nworker.join()\n",
        flagged="threading.Thread(target=model.generate, kwargs=kwargs)",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "worker = threading.Thread(target=model.generate, kwargs=kwargs)\n",
                'worker = threading.Thread(target=model.generate, kwargs={**kwargs, "cache_implementation": None})\n',
            ),
            "Ignore HFC001 on this line": (
                "worker = threading.Thread(target=model.generate, kwargs=kwargs)\n",
                "worker = threading.Thread(target=model.generate, kwargs=kwargs)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="`Thread(target=model.generate, kwargs=...)`: the error is raised in the thread",
    ),
    invalid(
        _LOAD + "\n\ndef run(model, **kwargs):\n"
        '    kwargs.setdefault("max_new_tokens", 5)\n'
        "    return model.generate(**kwargs)\n\n\n"
        'out = run(model, **inputs, past_key_values=DynamicCache(), cache_implementation="static")\n',
        flagged="model.generate(**kwargs)",
        fixes={
            "Set `cache_implementation=None` in this call": (
                "    return model.generate(**kwargs)\n",
                '    return model.generate(**{**kwargs, "cache_implementation": None})\n',
            ),
            "Ignore HFC001 on this line": (
                "    return model.generate(**kwargs)\n",
                "    return model.generate(**kwargs)  # hf-cache-lint: ignore[HFC001]\n",
            ),
        },
        note="a wrapper that forwards `**kwargs`",
    ),
    invalid(
        "from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        'model = AutoModelForCausalLM.from_pretrained("./ckpt")\n'
        'inputs = tokenizer("Hello", return_tensors="pt")\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache())\n",
        flagged="past_key_values=DynamicCache()",
        files=_CKPT,
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
        note="the checkpoint's generation_config.json sets it",
    ),
    invalid(
        _LOAD + _PARTIAL_OVER_GENERATE + _CALL_5,
        flagged="past_key_values=DynamicCache()",
        fixes=_CLEAR_IN_CALL_5,
        note="`model.generate` replaced by a `functools.partial` that pre-binds `cache_implementation`",
    ),
    invalid(
        _LOAD + _FAST_GENERATE + "\n\nmodel.generate = types.MethodType(fast_generate, model)\n" + _CALL_5,
        flagged="original_generate(*args, **kwargs)",
        fixes={"Set `cache_implementation=None` in this call": (
            "return original_generate(*args, **kwargs)",
            'return original_generate(*args, **{**kwargs, "cache_implementation": None})')},
        note="a fast-generate wrapper bound with `types.MethodType` that sets `cache_implementation` itself",
    ),
    invalid(
        _LOAD + _FAST_GENERATE.replace("(self, *args", "(*args") + "\n\nmodel.generate = fast_generate\n" + _CALL_5,
        flagged="original_generate(*args, **kwargs)",
        fixes={"Set `cache_implementation=None` in this call": (
            "return original_generate(*args, **kwargs)",
            'return original_generate(*args, **{**kwargs, "cache_implementation": None})')},
        note="a plain function assigned over `model.generate`",
    ),
    invalid(
        _LOAD + _DECORATOR.format(name="static_cache", value='"static"')
        + "\n\nmodel.generate = static_cache(model.generate)\n" + _CALL_5,
        flagged="fn(*args, **kwargs)",
        fixes={"Set `cache_implementation=None` in this call": (
            "return fn(*args, **kwargs)",
            'return fn(*args, **{**kwargs, "cache_implementation": None})')},
        note="a decorator assigned over `model.generate`: its inner function calls the original it captured",
    ),
    invalid(
        _LOAD + "import functools\n\n\nclass Server:\n    def __init__(self, model):\n        self.model = model\n"
        '        self.model.generate = functools.partial(self.model.generate, cache_implementation="static")\n\n'
        "    def reply(self, inputs, cache):\n"
        "        return self.model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n\n\n"
        "Server(model).reply(inputs, DynamicCache())\n",
        flagged="past_key_values=cache",
        fixes={"Set `cache_implementation=None` in this call": (
            "past_key_values=cache, max_new_tokens=5)", "past_key_values=cache, max_new_tokens=5, cache_implementation=None)")},
        note="`self.model.generate` replaced in `__init__`, called in a method",
    ),
    invalid(
        _LOAD + "import sys\n\n"
        'settings = {"cache_implementation": "static", "max_new_tokens": 5}\n'
        "if len(sys.argv) > 1:\n"
        '    settings = {"max_new_tokens": 5}\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), **settings)\n",
        flagged="past_key_values=DynamicCache()",
        severity=Severity.WARNING,
        fixes={"Set `cache_implementation=None` in this call": (
            "**settings)", '**{**settings, "cache_implementation": None})')},
        note="a kwargs dict rebound in one branch: a Warning (the oracle runs without arguments)",
    ),
    invalid(
        _LOAD + _USE_STATIC + "if use_static:\n" + _PARTIAL_IN_BRANCH + _CALL_5,
        flagged="past_key_values=DynamicCache()",
        severity=Severity.WARNING,
        message_contains="only if `use_static` holds",
        fixes=_CLEAR_IN_CALL_5,
        note="`model.generate` replaced by a partial in one branch: a Warning that names it (the oracle takes it)",
    ),
    invalid(
        _LOAD + _USE_STATIC + "if not use_static:\n    print(\"keeping the cache\")\nelse:\n" + _PARTIAL_IN_BRANCH
        + _CALL_5,
        flagged="past_key_values=DynamicCache()",
        severity=Severity.WARNING,
        message_contains="only if `use_static` holds",
        fixes=_CLEAR_IN_CALL_5,
        note="`model.generate` replaced in the `else` branch only: a Warning too",
    ),
    invalid(
        _LOAD + _FAST_GENERATE + "\n\n" + _USE_STATIC + "if use_static:\n"
        "    model.generate = types.MethodType(fast_generate, model)\n" + _CALL_5,
        flagged="original_generate(*args, **kwargs)",
        severity=Severity.WARNING,
        message_contains="only if `use_static` holds",
        fixes={"Set `cache_implementation=None` in this call": (
            "return original_generate(*args, **kwargs)",
            'return original_generate(*args, **{**kwargs, "cache_implementation": None})')},
        note="a fast-generate wrapper bound with `types.MethodType` in one branch: a Warning",
    ),
    invalid(
        _LOAD + "import functools\nimport os\n\n\nclass Server:\n    def __init__(self, model, static):\n"
        "        self.model = model\n        if static:\n"
        '            self.model.generate = functools.partial(self.model.generate, cache_implementation="static")\n\n'
        "    def reply(self, inputs, cache):\n"
        "        return self.model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n\n\n"
        'Server(model, os.environ.get("USE_STATIC", "1") == "1").reply(inputs, DynamicCache())\n',
        flagged="past_key_values=cache",
        severity=Severity.WARNING,
        message_contains="only if `static` holds",
        fixes={"Set `cache_implementation=None` in this call": (
            "past_key_values=cache, max_new_tokens=5)", "past_key_values=cache, max_new_tokens=5, cache_implementation=None)")},
        note="`self.model.generate` replaced in `__init__` under a parameter: a Warning",
    ),
)

ROUTES_VALID: tuple[Valid, ...] = (
    Valid(
        _LOAD + "from transformers import pipeline\n\n"
        'pipe = pipeline("text-generation", model=model, tokenizer=tokenizer)\n'
        'out = pipe("Hello", past_key_values=DynamicCache(), max_new_tokens=5)\n',
        note="a pipeline without `cache_implementation`",
    ),
    Valid(
        "from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        'model = AutoModelForCausalLM.from_pretrained("./ckpt")\n'
        'inputs = tokenizer("Hello", return_tensors="pt")\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None)\n",
        files=_CKPT,
        note="the checkpoint's value cleared in the call",
    ),
    Valid(
        "from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("google/gemma-2-2b-it")\n'
        'model = AutoModelForCausalLM.from_pretrained("google/gemma-2-2b-it")\n'
        'inputs = tokenizer("Hello", return_tensors="pt")\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note='Gemma 2\'s Hub "hybrid" default: dropped from 4.56, reset in 5.x',
    ),
    Valid(
        _LOAD + "\n\nclass Chat:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def reply(self, inputs, cache=None):\n"
        "        return self.model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n\n\n"
        "Chat(model).reply(inputs, DynamicCache())\n",
        note="a class whose model has no `cache_implementation`",
    ),
    Valid(
        _LOAD + "import sys\n\nreuse = len(sys.argv) > 1\nif not reuse:\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "cache = DynamicCache()\n"
        "out = model.generate(**inputs, past_key_values=cache if reuse else None, max_new_tokens=5)\n",
        note="the cache only `if reuse`, `cache_implementation` only `if not reuse`: they never meet",
    ),
    Valid(
        _LOAD + "import argparse\n\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--reuse-cache", action="store_true")\nargs = parser.parse_args()\n'
        'if not args.reuse_cache:\n    model.generation_config.cache_implementation = "static"\n'
        "for _ in range(2):\n    if args.reuse_cache:\n"
        "        out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="exclusive conditions on an attribute (`args.reuse_cache`), across statements and a loop",
    ),
    Valid(
        _LOAD + 'import functools\n\nmodel.generation_config.cache_implementation = "static"\n'
        "model.generate = functools.partial(model.generate, cache_implementation=None)\n"
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="a partial over `model.generate` that clears `cache_implementation` for every later call",
    ),
    Valid(
        _LOAD + _DECORATOR.format(name="no_preset_cache", value="None")
        + '\n\nmodel.generation_config.cache_implementation = "static"\n'
        "model.generate = no_preset_cache(model.generate)\n" + _CALL_5,
        note="a decorator over `model.generate` whose inner function clears `cache_implementation` for every call",
    ),
    Valid(
        _LOAD + _USE_STATIC + "if use_static:\n" + _PARTIAL_IN_BRANCH + "if not use_static:\n    " + _CALL_5,
        note="`model.generate` replaced under `if use_static:`, the cache passed under `if not use_static:`: "
             "they never meet",
    ),
    Valid(
        _LOAD + _USE_STATIC + 'model.generation_config.cache_implementation = "static"\nif use_static:\n'
        "    model.generate = functools.partial(model.generate, cache_implementation=None)\n"
        "else:\n    model.generate = functools.partial(model.generate, cache_implementation=None)\n" + _CALL_5,
        note="both branches replace `model.generate` by a partial that clears `cache_implementation`",
    ),
)
