"""HFC001 examples for the routes real code takes: classes, handlers, pipelines, partial, threads,
wrappers and checkpoints. Each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, Valid, invalid
from hf_cache_lint.rules.hfc001_cache_conflict.examples import _LOAD

_CKPT = {
    "ckpt/config.json": "{}\n",
    "ckpt/generation_config.json": '{\n  "cache_implementation": "static",\n  "max_new_tokens": 5\n}\n',
}

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
)
