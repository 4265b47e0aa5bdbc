"""HFC003 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc003_cache_keyword.examples import _BEFORE_524, _LLAMA, _MAMBA
from hf_cache_lint.rules.snippets import own_generate_wrapper

VALID: tuple[Valid, ...] = (
    Valid(
        _LLAMA + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        versions=_BEFORE_524,
        note="`past_key_values=` for an attention model before 5.24",
    ),
    Valid(
        _LLAMA + "out = model.generate(**inputs, cache=DynamicCache(), max_new_tokens=5)\n",
        versions=("5.24.0", "5.25.0"),
        note="`cache=` in 5.24",
    ),
    Valid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache_params\n"
        "out = model.generate(**inputs, cache_params=state, max_new_tokens=5)\n",
        versions=_BEFORE_524,
        note="`cache_params=` for a Mamba model before 5.24",
    ),
    Valid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache\n"
        "out = model.generate(**inputs, cache=state, max_new_tokens=5)\n",
        versions=("5.24.0", "5.25.0"),
        note="`cache=` for a Mamba model in 5.24",
    ),
    Valid(
        _MAMBA + "out = model.generate(**inputs, past_key_values=None, max_new_tokens=5)\n",
        versions=_BEFORE_524,
        note="a None value passes generate's keyword check",
    ),
    Valid(
        _LLAMA + "draft = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-3.2-1B\")\n"
        "out = model.generate(**inputs, assistant_model=draft, max_new_tokens=5)\n",
        note="assisted generation with an attention model",
    ),
    Valid(
        _MAMBA + "draft = MambaForCausalLM.from_pretrained(\"state-spaces/mamba-130m-hf\")\n"
        "out = model.generate(**inputs, assistant_model=draft, max_new_tokens=5)\n",
        versions=("5.25.0",),
        note="assisted generation on a Mamba model from 5.25 (it rolls the recurrent state back)",
    ),
    Valid(
        _MAMBA + "out = model.generate(**inputs, max_new_tokens=5)\n",
        note="no cache keyword at all",
    ),
    Valid(
        _LLAMA + own_generate_wrapper("static"),
        note="a user's own `generate` takes its own `past_key_values`",
    ),
)
