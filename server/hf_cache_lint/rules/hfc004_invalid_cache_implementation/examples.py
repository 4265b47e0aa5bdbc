"""HFC004 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_LOAD = prelude("GenerationConfig")
_MAMBA = prelude(model="MambaForCausalLM", checkpoint=MAMBA)
_T5 = """from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("google-t5/t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")
inputs = tokenizer("translate English to German: The house is wonderful.", return_tensors="pt")
"""
_5X = ("5.23.0", "5.24.0", "5.25.0")
FULL_PRECISION_TITLE = "Replace with `{new}` (a full-precision cache)"
_GEMMA2 = prelude(checkpoint="google/gemma-2-2b-it")
_QUANT_BUILD = ('cache = QuantizedCache(backend="quanto", config=model.config)\n'
                "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n")
_QUANT_CALL = ('out = model.generate(**inputs, cache_implementation="quantized", max_new_tokens=5,\n'
               '                     cache_config={"backend": "quanto", "nbits": 4})\n')

# `cache_implementation=` given to the model loader (docs/facts.md §2: TypeError in the model's `__init__`).
_STATIC_LOAD = _LOAD.replace('from_pretrained("meta-llama/Llama-3.2-1B")\ninputs',
                             'from_pretrained("meta-llama/Llama-3.2-1B", cache_implementation="static")\ninputs')
_SUBCLASS_STATIC_LOAD = """from transformers import AutoTokenizer, LlamaForCausalLM


class Chat(LlamaForCausalLM):
    pass


tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = Chat.from_pretrained("meta-llama/Llama-3.2-1B", cache_implementation="static")
inputs = tokenizer("The capital of France is", return_tensors="pt")
"""

_TYPO_CALL = 'out = model.generate(**inputs, cache_implementation="statc", max_new_tokens=5)\n'

INVALID: tuple[Invalid, ...] = (
    invalid(
        _LOAD + _TYPO_CALL,
        flagged='"statc"',
        fixes={
            'Replace with `"static"`': ('"statc"', '"static"'),
            "Ignore HFC004 on this line": (_TYPO_CALL, _TYPO_CALL.rstrip("\n") + "  # hf-cache-lint: ignore[HFC004]\n"),
        },
        message_contains='did you mean "static"?',
        note="a typo in the call",
    ),
    invalid(
        _LOAD + 'model.generation_config.cache_implementation = "Static"\n'
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged='"Static"',
        fixes={'Replace with `"static"`': ('"Static"', '"static"')},
        note="values are case-sensitive (an attribute is only checked when generate runs)",
    ),
    invalid(
        _LOAD + "config = GenerationConfig(max_new_tokens=5, cache_implementation='offload')\n"
        "out = model.generate(**inputs, generation_config=config)\n",
        flagged="'offload'",
        fixes={"Replace with `'offloaded'`": ("'offload'", "'offloaded'")},
        note="in a GenerationConfig (raised when it is built); the fix keeps the quote style",
    ),
    invalid(
        _LOAD + 'gen_kwargs = {"max_new_tokens": 5, "cache_implementation": "dynamic_full"}\n'
        "out = model.generate(**inputs, **gen_kwargs)\n",
        flagged='"dynamic_full"',
        fixes={'Replace with `"dynamic"`': ('"dynamic_full"', '"dynamic"')},
        versions=_5X,
        note="`dynamic_full` was removed in 5.0 (a kwargs dict)",
    ),
    invalid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="paged", max_new_tokens=5)\n',
        flagged='"paged"',
        fixes={"Replace with `None`": ('"paged"', "None")},
        versions=("4.57.6",),
        note="`paged` (continuous batching) arrived in 5.0",
    ),
    invalid(
        _MAMBA + 'out = model.generate(**inputs, cache_implementation="mamba", max_new_tokens=5)\n',
        flagged='"mamba"',
        fixes={"Replace with `None`": ('"mamba"', "None")},
        note="`mamba` stopped being a value in 4.56 (Mamba models build their own cache)",
    ),
    invalid(
        _T5 + 'out = model.generate(**inputs, cache_implementation="quantized", max_new_tokens=5)\n',
        flagged='"quantized"',
        fixes={'Replace with `"dynamic"`': ('"quantized"', '"dynamic"')},
        runtime="OTHER",
        note="`quantized` on an encoder-decoder model",
    ),
    invalid(
        _LOAD + "config = GenerationConfig(max_new_tokens=5)\n"
        'config.cache_implementation = "offload"\n'
        'config.save_pretrained("generation")\n',
        flagged='"offload"',
        fixes={
            "Replace with `\"offloaded\"`": ('"offload"', '"offloaded"'),
            "Ignore HFC004 on this line": ('config.cache_implementation = "offload"\n',
                                           'config.cache_implementation = "offload"  # hf-cache-lint: ignore[HFC004]\n'),
        },
        note="assigned as an attribute, then validated by `save_pretrained` (no generate call)",
    ),
    invalid(
        _LOAD + "\n\nclass Runner:\n    def __init__(self):\n"
        '        self.settings = {"max_new_tokens": 5}\n'
        '        self.settings["cache_implementation"] = "statc"\n\n'
        "    def run(self):\n        config = GenerationConfig(**self.settings)\n"
        "        return model.generate(**inputs, generation_config=config)\n\n\n"
        "out = Runner().run()\n",
        flagged='"statc"',
        fixes={'Replace with `"static"`': ('"statc"', '"static"')},
        note="a settings dict built in steps in `__init__`, made into a GenerationConfig by a method",
    ),
    invalid(
        _GEMMA2 + _QUANT_CALL,
        flagged='"quantized"',
        fixes={FULL_PRECISION_TITLE.format(new='"dynamic"'): ('"quantized"', '"dynamic"')},
        versions=_5X,
        portable=True,
        message_contains="(since 5.14.0)",
        note="`quantized` on a model with sliding-window layers (Gemma 2): 5.14+ refuse it, 4.57.6 quantizes",
    ),
    invalid(
        prelude("QuantizedCache", checkpoint="google/gemma-2-2b-it") + _QUANT_BUILD,
        flagged='QuantizedCache(backend="quanto", config=model.config)',
        fixes={},
        versions=_5X,
        note="a QuantizedCache built with a Gemma 2 config: its constructor refuses it from 5.14 (4.57.6 builds it)",
    ),
    invalid(
        _STATIC_LOAD + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged='cache_implementation="static"',
        fixes={"Remove `cache_implementation=`": (', cache_implementation="static")', ")")},
        runtime={"4.57.6": "OTHER", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="raises TypeError: __init__() got an unexpected keyword argument 'cache_implementation'",
        note="`from_pretrained` does not take a generation setting: the model's constructor gets it and raises",
    ),
    invalid(
        _SUBCLASS_STATIC_LOAD + "out = model.generate(**inputs, max_new_tokens=5)\n",
        flagged='cache_implementation="static"',
        fixes={"Remove `cache_implementation=`": (', cache_implementation="static")', ")")},
        runtime={"4.57.6": "OTHER", "5.23.0": "OTHER", "5.24.0": "OTHER", "5.25.0": "OTHER"},
        message_contains="`LlamaForCausalLM.__init__()`, so transformers",
        note="the same through the project's subclass of a model class (`Chat.from_pretrained`)",
    ),
)
