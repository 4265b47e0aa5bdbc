"""HFC006 examples that must not be flagged (each runs clean, without a cache deprecation warning)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc006_deprecated_cache_usage.examples import _CONFIG, _LLAMA, _MAMBA

VALID: tuple[Valid, ...] = (
    Valid(
        _LLAMA + "out = model.generate(**inputs, cache=DynamicCache(), max_new_tokens=5)\n",
        versions=("5.24.0", "5.25.0"),
        note="`cache=` in 5.24",
    ),
    Valid(
        _LLAMA + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        versions=("4.57.6", "5.23.0"),
        note="`past_key_values=` is the current name before 5.24",
    ),
    Valid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache_params\n"
        "out = model.generate(**inputs, cache_params=state, max_new_tokens=5)\n",
        versions=("4.57.6", "5.23.0"),
        note="`cache_params=` is the current name for Mamba models before 5.24",
    ),
    Valid(
        _CONFIG + 'out = model.generate(**inputs, cache_implementation="static", max_new_tokens=5)\n',
        note="a current `cache_implementation` name",
    ),
    Valid(
        _CONFIG + 'model.generation_config.cache_implementation = "hybrid"\n'
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        versions=("4.57.6",),
        note="4.57 resets a `hybrid` on the model's own generation config before use, without a word",
    ),
    Valid(
        "from transformers import AutoModelForCausalLM, AutoTokenizer\n\n"
        'tokenizer = AutoTokenizer.from_pretrained("google/gemma-2-2b-it")\n'
        'model = AutoModelForCausalLM.from_pretrained("google/gemma-2-2b-it")\n'
        'inputs = tokenizer("The capital of France is", return_tensors="pt")\n'
        "out = model.generate(**inputs, max_new_tokens=5)\n",
        note="Gemma 2's Hub generation_config.json says `\"hybrid\"`: not the user's code to change",
    ),
)
