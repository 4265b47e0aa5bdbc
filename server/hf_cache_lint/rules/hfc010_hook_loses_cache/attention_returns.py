"""HFC010's patched attention forwards returning another number of values than the decoder layers unpack
(engine/facts/patched_attention.py): the release table's `unpack:` facts say how many names each tabled
architecture's decoder layer unpacks `self.self_attn(...)` into; where every one of them says the same number at
the target (so whichever of those models was loaded), a patched-in forward returning another count raises
`ValueError: too many values to unpack` (or `not enough values`) in every layer (the oracle: this module's examples,
`recall:heldout7/duo_attention_patch.py`). No mechanical fix: what the function returns is the project's design."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.patched_attention import PatchedAttention
from hf_cache_lint.engine.output.analysis import Analysis

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule


def unpacked(version: object) -> int | None:
    """The number every tabled decoder layer unpacks from its attention at `version`, when they all agree."""
    counts = {releases.value(key, str(version)) for key in releases.table().facts if key.startswith("unpack:")}
    counts.discard(None)
    if len(counts) != 1:
        return None
    only = counts.pop()
    return int(only) if only is not None and only.isdigit() else None


def finding(rule: Rule, analysis: Analysis, fact: PatchedAttention) -> Finding | None:
    target = analysis.context.target
    expected = unpacked(target.version)
    if expected is None or expected == fact.returned:
        return None
    error = (f"`ValueError: too many values to unpack (expected {expected})`" if fact.returned > expected else
             f"`ValueError: not enough values to unpack (expected {expected}, got {fact.returned})`")
    how = f"installed as `{fact.owner}`" if fact.installed else f"patched in as `{fact.owner}.forward`"
    message = (f"`{fact.function}`, {how}, returns {fact.returned} values (line "
               f"{fact.return_at.start.line}), and transformers {target}'s decoder layers unpack "
               f"`self.self_attn(...)` into {expected}; every layer's forward raises {error}. Instead, return "
               f"{_shape(expected)}")
    return rule.report(fact.span, message, story=partial(_story, fact, str(target), expected, error))


def _shape(expected: int) -> str:
    return ("`(attn_output, attn_weights)` (the cache is updated in place by the forward, not returned)"
            if expected == 2 else "`(attn_output, attn_weights, past_key_value)`")


def _story(fact: PatchedAttention, target: str, expected: int, error: str) -> str:
    return (f"**A patched attention forward returns {fact.returned} values; transformers {target} unpacks "
            f"{expected}**\n\n`{fact.function}` replaces `{fact.owner}{'' if fact.installed else '.forward'}`. Up to 4.47.1 Llama's decoder layer "
            "unpacked `hidden_states, self_attn_weights, present_key_value = self.self_attn(...)`; from 4.48.0 it "
            "unpacks two, `hidden_states, _ = self.self_attn(...)`, and the attention updates the cache in place "
            "(the release table's `unpack:` facts, read from each wheel for 17 architectures: at this release they "
            f"all unpack {expected}). Every layer's forward raises {error}.\n\nReturn {_shape(expected)}.")
