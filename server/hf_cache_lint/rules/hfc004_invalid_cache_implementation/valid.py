"""HFC004 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc004_invalid_cache_implementation.examples import (
    _GEMMA2,
    _LOAD,
    _MAMBA,
    _QUANT_BUILD,
    _QUANT_CALL,
)
from hf_cache_lint.rules.snippets import own_generate_wrapper, prelude

VALID: tuple[Valid, ...] = (
    Valid(_LOAD + _QUANT_CALL, note="`quantized` on a model whose layers are all full-attention ones (Llama)"),
    Valid(prelude("QuantizedCache") + _QUANT_BUILD, note="a QuantizedCache built with a Llama config"),
    Valid(_GEMMA2 + _QUANT_CALL, versions=("4.57.6",),
          note="`quantized` on Gemma 2 before 5.14.0: built and used"),
    Valid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="static", max_new_tokens=5)\n',
        note="a valid value",
    ),
    Valid(
        _LOAD + 'config = GenerationConfig(max_new_tokens=5, cache_implementation="dynamic")\n'
        "out = model.generate(**inputs, generation_config=config)\n",
        note="a valid value in a GenerationConfig",
    ),
    Valid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="dynamic_full", max_new_tokens=5)\n',
        versions=("4.57.6",),
        note="`dynamic_full` is still a value in 4.x",
    ),
    Valid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="sliding_window", max_new_tokens=5)\n',
        versions=("4.57.6",),
        note="`sliding_window` is still accepted in 4.x (deprecated: HFC006)",
    ),
    Valid(
        _MAMBA + "out = model.generate(**inputs, cache_implementation=None, max_new_tokens=5)\n",
        note="None is always allowed",
    ),
    Valid(
        _LOAD + 'label = "Static"\nprint(label)\n'
        'mode = "static"\nout = model.generate(**inputs, cache_implementation=mode, max_new_tokens=5)\n',
        note="a string that is not a `cache_implementation`",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        note="a valid value set on the model's generation config",
    ),
    Valid(
        _LOAD + "config = GenerationConfig(max_new_tokens=5)\n"
        'config.cache_implementation = "statc"\n'
        "print(config.max_new_tokens)\n",
        note="an invalid value assigned to a config that nothing validates (a plain attribute is silent until generate)",
    ),
    Valid(
        _LOAD + "from transformers import DynamicCache\n" + own_generate_wrapper("statc"),
        note="a user's own `generate` takes its own `cache_implementation`",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        note="the generation setting set on the loaded model's generation config, not given to `from_pretrained`",
    ),
)
