"""HFC010's model forwards with a fixed keyword list (engine/facts/fixed_forward.py): `generate` hands the forward of
a model it runs the cache keywords of the release table's `generate_input:` facts (`cache_position` on every step up
to 5.3.0, `cache` from 5.24.0); a subclass's own `forward` without `**kwargs` that lacks one raises `TypeError:
...forward() got an unexpected keyword argument` inside generate (the oracle: this module's examples,
`recall:heldout7/llava_generate_forward.py`). A forward that takes `past_key_values` and a `**kwargs` its body never
names gets 5.24's `cache=` there and drops it: the parent's forward runs each step without the past (silently; the
oracle: this module's examples, `recall:heldout12/videollama2_qwen2_infer.py`). No mechanical fix: taking `**kwargs`
without handing them on to the parent's forward would swallow 5.24's `cache` and run each step without its past."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Severity
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
    if fact.swallows is not None:
        return _swallowed(rule, analysis, fact, fact.swallows)
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


def _swallowed(rule: Rule, analysis: Analysis, fact: FixedForward, kw: str) -> Finding | None:
    """`forward(..., past_key_values=None, ..., **kwargs)` whose body never names `kwargs`: from the release whose
    generate hands the forward `cache=` on every step, the cache lands in `**kwargs` and goes no further, and
    `past_key_values` is None."""
    target = analysis.context.target
    if "past_key_values" not in fact.parameters or "cache" in fact.parameters or \
            releases.value("generate_input:cache", target.version) != "always":
        return None
    first = releases.first_release("generate_input:cache", "always")
    since = f" (since {first})" if first is not None and str(first) != str(target) else ""
    message = (f"`{fact.cls}.forward` takes the cache as `past_key_values` and a `**{kw}` it never hands on, and "
               f"transformers {target}'s `generate` hands the model's forward the cache as `cache=`{since}: it "
               f"lands in `**{kw}` and is dropped, `past_key_values` is None, and the `.generate(...)` at line "
               f"{fact.generate_at.start.line} runs each step without its past (silently: every step feeds the "
               f"model only the new token, so the output changes). Instead, hand `**{kw}` on to the parent's "
               f"forward (`super().forward(..., **{kw})`), or read `past_key_values = {kw}.pop(\"cache\", "
               "past_key_values)` first")
    return rule.report(fact.span, message, severity=Severity.WARNING,
                       story=f"**`{fact.cls}.forward` drops the cache 5.24's `generate` hands it**\n\n`generate` "
                             "calls the model's forward with the inputs its `prepare_inputs_for_generation` builds; "
                             "from 5.24.0 they carry the cache as `cache=` (the release table's `generate_input:` "
                             f"facts). `{fact.cls}.forward` takes `past_key_values` and collects the rest in "
                             f"`**{kw}`, which its body never reads nor passes on, so the cache stops there.")
