"""HFC010's model forwards with a fixed keyword list (engine/facts/fixed_forward.py): `generate` hands the forward
of a model it runs the cache keywords of the release table's `generate_input:` facts (`cache_position` on every
step up to 5.3.0, `cache` from 5.24.0); a subclass's own `forward` without `**kwargs` that lacks one raises
`TypeError: ...forward() got an unexpected keyword argument` inside generate (the oracle: this module's examples,
`recall:heldout7/llava_generate_forward.py`). No mechanical fix: taking `**kwargs` without handing them on to the
parent's forward would swallow 5.24's `cache` and run each step without its past."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.fixed_forward import FixedForward
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_LLAMA_HOOK = "member:transformers.models.llama.modeling_llama.LlamaForCausalLM.prepare_inputs_for_generation"


def finding(rule: Rule, analysis: Analysis, fact: FixedForward) -> Finding | None:
    target = analysis.context.target
    version = target.version
    if fact.base != "LlamaForCausalLM" and releases.value(_LLAMA_HOOK, version) is not None:
        return None  # 4.41-4.45: each model's own hook; the table reads Llama's only
    for key in ("cache_position", "cache"):
        if key in fact.parameters or releases.value(f"generate_input:{key}", version) != "always":
            continue
        runs = releases.table().facts.get(f"generate_input:{key}", ())
        span_text = ", ".join(f"{r.first} to {r.last}" for r in runs if r.value == "always")
        error = f"`TypeError: {fact.cls}.forward() got an unexpected keyword argument '{key}'`"
        message = (f"`{fact.cls}.forward` takes a fixed keyword list without `{key}`, and transformers {target}'s "
                   f"`generate` hands the model's forward `{key}=` on every step (releases {span_text}); the "
                   f"`.generate(...)` at line {fact.generate_at.start.line} raises {error}. Instead, take `**kwargs` "
                   f"and hand them on to the parent's forward (`super().forward(..., **kwargs)`), so the cache "
                   "keywords reach it under whichever names the release uses")
        return rule.report(fact.span, message, story=partial(_story, fact, str(target), key, span_text, error))
    return None


def _story(fact: FixedForward, target: str, key: str, span_text: str, error: str) -> str:
    return (f"**`{fact.cls}.forward` cannot take what `generate` hands it in transformers {target}**\n\n"
            f"`generate` calls the model's forward with the inputs its `prepare_inputs_for_generation` builds "
            f"(`{fact.base}` uses the reference one; the release table's `generate_input:` facts, read from each "
            f"wheel): `{key}=` on every step in releases {span_text}. `{fact.cls}.forward` lists its keywords "
            f"without `**kwargs` and without `{key}`, so the first step raises {error}.\n\n"
            "Take `**kwargs` and pass them on: `super().forward(..., **kwargs)` runs on 4.57.6, 5.23.0, 5.24.0 and "
            "5.25.0 (5.24's `cache` reaches the parent's forward, which keeps the cache).")
