"""HFC003 examples that must be flagged; each runs unchanged under the oracle against real transformers."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Severity
from hf_cache_lint.rules.base import Invalid, invalid
from hf_cache_lint.rules.snippets import MAMBA, prelude

_LLAMA = prelude("DynamicCache")
_MAMBA = prelude(model="MambaForCausalLM", checkpoint=MAMBA)
_BEFORE_524 = ("4.57.6", "5.23.0")
# A wrong keyword fails `_validate_model_kwargs`: the oracle classifies that error as HFC005's.
_UNUSED = {"runtime": "HFC005"}
# Before 5.24 rejected; 5.24 reads it as `cache=` with a FutureWarning (HFC006's hint, runs fine).
_THEN_DEPRECATED = {"versions": _BEFORE_524,
                    "runtime": {"4.57.6": "HFC005", "5.23.0": "HFC005", "5.24.0": "OK", "5.25.0": "OK"}}


def _ignore(line: str) -> tuple[str, str]:
    return line, line.rstrip("\n") + "  # hf-cache-lint: ignore[HFC003]\n"


_CACHE_CALL = "out = model.generate(**inputs, cache=DynamicCache(), max_new_tokens=5)\n"

INVALID: tuple[Invalid, ...] = (
    invalid(
        _LLAMA + _CACHE_CALL,
        flagged="cache=DynamicCache()",
        fixes={
            "Rename to `past_key_values=`": ("cache=DynamicCache()", "past_key_values=DynamicCache()"),
            "Ignore HFC003 on this line": _ignore(_CACHE_CALL),
        },
        versions=_BEFORE_524,
        note="the 5.24 `cache=` keyword on an older transformers",
        **_UNUSED,
    ),
    invalid(
        _LLAMA + "out = model.generate(**inputs, cache_params=DynamicCache(), max_new_tokens=5)\n",
        flagged="cache_params=DynamicCache()",
        fixes={"Rename to `past_key_values=`": ("cache_params=DynamicCache()", "past_key_values=DynamicCache()")},
        note="Mamba's `cache_params=` on an attention model",
        **_THEN_DEPRECATED,
    ),
    invalid(
        _MAMBA + "state = model(**inputs, use_cache=True).cache_params\n"
        "out = model.generate(**inputs, past_key_values=state, max_new_tokens=5)\n",
        flagged="past_key_values=state",
        fixes={"Rename to `cache_params=`": ("past_key_values=state", "cache_params=state")},
        note="`past_key_values=` on a Mamba model",
        **_THEN_DEPRECATED,
    ),
    invalid(
        _LLAMA + "\n\ndef complete(prompt, cache=None, past=None):\n"
        "    batch = tokenizer(prompt, return_tensors=\"pt\")\n"
        "    return model.generate(**batch, past_key_values=past, cache=cache, max_new_tokens=5)\n\n\n"
        "out = complete(\"The capital of France is\", past=DynamicCache())\n",
        flagged="past_key_values=past",
        fixes={"Remove `past_key_values=`": ("past_key_values=past, ", "")},
        versions=("5.24.0", "5.25.0"),
        severity=Severity.WARNING,
        runtime="OK",
        note="both names in 5.24: `cache=None` wins and the cache passed as `past_key_values=` is ignored",
    ),
    invalid(
        _MAMBA + "draft = MambaForCausalLM.from_pretrained(\"state-spaces/mamba-130m-hf\")\n"
        "out = model.generate(**inputs, assistant_model=draft, max_new_tokens=5)\n",
        flagged="assistant_model=draft",
        fixes={"Remove `assistant_model=`": (", assistant_model=draft", "")},
        runtime="OTHER",
        versions=("4.57.6", "5.23.0", "5.24.0"),  # 5.25.0 rolls a recurrent state back: it runs (oracle)
        note="assisted generation on a stateful (Mamba) model, up to 5.24",
    ),
    invalid(
        "from transformers import DynamicCache, pipeline\n\n"
        "generator = pipeline(\"text-generation\", model=\"meta-llama/Llama-3.2-1B\")\n"
        "result = generator(\"The capital of France is\", cache=DynamicCache(), max_new_tokens=5)\n",
        flagged="cache=DynamicCache()",
        fixes={"Rename to `past_key_values=`": ("cache=DynamicCache()", "past_key_values=DynamicCache()")},
        versions=_BEFORE_524,
        note="a text-generation pipeline hands the keyword to generate",
        **_UNUSED,
    ),
)
