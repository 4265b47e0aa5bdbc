"""HFC007's `generate` (or another `GenerationMixin` method) on a model class built on a transformers backbone alone
(engine/facts/backbone_generate.py): from 4.52.1 `PreTrainedModel` no longer derives from `GenerationMixin` (the
release table), so such a class has no `generate` (nor `_get_logits_processor`, ...) and the call raises AttributeError (the oracle: HFC007's examples, `recall:heldout7/
xtts_gpt_inference.py`). No mechanical fix: adding `GenerationMixin` to the bases makes `generate` run the class's
own `forward` and hooks, whose fitness for generate is the user's to check."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.backbone_generate import BackboneGenerate
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_GENERATION = "transformers.generation.utils"


def finding(rule: Rule, analysis: Analysis, fact: BackboneGenerate) -> Finding | None:
    target = analysis.context.target
    since = target.backbone_generate_gone()
    if since is None:
        return None
    if fact.member != "generate" and \
            releases.member(_GENERATION, "GenerationMixin", fact.member, target.version) is None:
        return None  # gone from GenerationMixin itself: the removed-helper finding says so (or nothing has it)
    error = f"`AttributeError: '{fact.cls}' object has no attribute '{fact.member}'`"
    message = (f"`{fact.receiver}.{fact.member}(...)`: `{fact.cls}` is built on `{fact.base}`, a model without a "
               f"language-model head, and transformers {target}'s `PreTrainedModel` no longer derives from "
               f"`GenerationMixin` (since {since}), so `{fact.cls}` has no `{fact.member}`; this call raises {error}. "
               f"Instead, list `GenerationMixin` among its bases (`class {fact.cls}({fact.base}, GenerationMixin)`, "
               "`from transformers import GenerationMixin`: importable on every release)")
    return rule.report(fact.span, message,
                       story=partial(_story, fact, str(target), since, error))


def _story(fact: BackboneGenerate, target: str, since: str, error: str) -> str:
    return (f"**`{fact.cls}` has no `{fact.member}` in transformers {target}**\n\n"
            f"`{fact.cls}` derives from `{fact.base}` (line {fact.class_span.start.line}), a transformers model class "
            "without a language-model head. Up to 4.51.3 every `PreTrainedModel` derived from `GenerationMixin`, "
            f"so any model class had `generate` and its helpers; from {since} only the generation heads (`*ForCausalLM`, "
            "`*ForConditionalGeneration`, `*LMHeadModel`) list `GenerationMixin` themselves (the release table: "
            f"`PreTrainedModel`'s bases, read from each wheel). Calling it raises {error}.\n\n"
            f"Add `GenerationMixin` to the bases: `class {fact.cls}({fact.base}, GenerationMixin):` runs on every "
            "release (4.x and 5.x), and `generate` then calls the class's own `forward` and "
            "`prepare_inputs_for_generation`.")
