"""HFC010's patched attention forwards returning another number of values than the decoder layers unpack
(engine/facts/patched_attention.py): the release table's `unpack:` facts say how many names each tabled
architecture's decoder layer unpacks `self.self_attn(...)` into; where every one of them says the same number at
the target (so whichever of those models was loaded), a patched-in forward returning another count raises
`ValueError: too many values to unpack` (or `not enough values`) in every layer (the oracle: this module's examples,
`recall:heldout7/duo_attention_patch.py`). Not where the function cannot take a keyword the target's decoder layer
passes it (Llama's, the table's `call:` fact) and has no `**kwargs`: that call raises TypeError before anything is
returned (`_refused`). No mechanical fix: what the function returns is the project's design."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.patched_attention import PatchedAttention
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node

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


def miscounted(analysis: Analysis, fact: PatchedAttention) -> bool:
    """The function returns another count than the target's layers unpack, and is not reported for it only because
    a keyword the layer passes is refused first (`_refused`)."""
    target = analysis.context.target
    expected = unpacked(target.version)
    return expected is not None and expected != fact.returned and _refused(analysis, fact, target.version) is not None


def finding(rule: Rule, analysis: Analysis, fact: PatchedAttention) -> Finding | None:
    target = analysis.context.target
    expected = unpacked(target.version)
    if expected is None or expected == fact.returned or _refused(analysis, fact, target.version) is not None:
        return None
    error = (f"`ValueError: too many values to unpack (expected {expected})`" if fact.returned > expected else
             f"`ValueError: not enough values to unpack (expected {expected}, got {fact.returned})`")
    how = f"installed as `{fact.owner}`" if fact.installed else f"patched in as `{fact.owner}.forward`"
    message = (f"`{fact.function}`, {how}, returns {fact.returned} values (line "
               f"{fact.return_at.start.line}), and transformers {target}'s decoder layers unpack "
               f"`self.self_attn(...)` into {expected}; every layer's forward raises {error}. Instead, return "
               f"{_shape(expected)}")
    return rule.report(fact.span, message, story=partial(_story, fact, str(target), expected, error))


# What Llama's decoder layer hands its attention, by keyword, at each release (the table's `call:` fact).
_LAYER_CALL = "call:transformers.models.llama.modeling_llama.LlamaDecoderLayer.forward->self_attn"


def _refused(analysis: Analysis, fact: PatchedAttention, version: object) -> str | None:
    """The first keyword the target's decoder layer passes its attention that the patched-in function cannot take
    (no such parameter and no `**kwargs`): the call raises `TypeError: ... got an unexpected keyword argument`
    before anything is returned, so the unpack never runs (PAI's 4.3x `llama_new_forward(self, hidden_states,
    attention_mask=None, position_ids=None, past_key_value=None, output_attentions=False, use_cache=False)` on
    4.57.6: `recall:heldout23/pai_cfg_attention.py` pa_patched_attention, at the function's signature). None where
    the function is not found or takes every keyword."""
    call = releases.value(_LAYER_CALL, str(version)) or ""
    keywords = next((part[3:].split(",") for part in call.split() if part.startswith("kw=")), [])
    fn = _function(analysis, fact.function)
    if fn is None or not keywords:
        return None
    params = fn.get_params()
    if any(p.star_count == 2 for p in params):
        return None
    names = {p.name.value for p in params if p.star_count == 0}
    return next((k for k in keywords if k not in names), None)


def _function(analysis: Analysis, qualname: str) -> Node | None:
    """The module's `def` named `qualname` (`f`, or `Cls.forward`)."""
    tree = analysis.tree
    if tree is None or not qualname:
        return None
    owner, _, name = qualname.rpartition(".")
    stack: list[Node] = [tree]
    while stack:
        node = stack.pop()
        if node.type == "funcdef" and node.children[1].value == name:
            parent = node.parent.parent if node.parent is not None and node.parent.type == "suite" else node.parent
            in_class = parent is not None and parent.type == "classdef"
            if (owner and in_class and parent.children[1].value == owner) or (not owner and not in_class):
                return node
        stack.extend(getattr(node, "children", ()))
    return None


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
