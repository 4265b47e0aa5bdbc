"""HFC010 on a decode loop the code runs itself with transformers' hook: it calls a loaded model's
`prepare_inputs_for_generation(input_ids, **model_kwargs)` and carries the step's cache into that dict with the
model's `_update_model_kwargs_for_generation(outputs, model_kwargs)` (InternLM's streaming chat, RL4LMs' value
rollouts copy generate's own steps). From 5.3.0 transformers' hook cuts the input to the new tokens by
`next_sequence_length` alone, a parameter generate passes and such a loop does not (the release table's hook
signature; the wheels: `input_ids[:, -next_sequence_length:] if next_sequence_length is not None else input_ids` in
5.3.0-5.25.0, where 4.x and 5.0-5.2 cut by `cache_position`): every step feeds the whole sequence again onto the
carried cache, which then holds the prompt once more at each step (silently; the oracle:
`recall:heldout11/internlm_pal_stream.py` il_carry_cache and `recall:heldout10/rl4lms_actor_critic.py`
rl_update_state on 5.23.0, 5.24.0 and 5.25.0, this module's examples on 5.3.0-5.25.0). Where the target's helper
still reads `model_kwargs["cache_position"]` on every call (4.43.0-5.2.0) it raises KeyError there first, HFC007's
finding (hfc007 helper_reads).

The finding stands on the `_update_model_kwargs_for_generation` call, the statement that hands the cache on to the
hook's next call (without it the loop runs each step on the whole sequence and no cache, as its author meant it to
when carrying none); the hook's call is named and attached as related information. Precision: the receivers are
models the code loads (not `super()`, nor `self` in a method: an override is called by generate with its own
arguments; `self` in a module function the interpreter runs as a model's method is one, EasyEdit's
`GenerationMixin.generate = deco_generate`); the dict
is not the `**` parameter of the function holding the update (a loop of generate's own); the module never says
`next_sequence_length`, defines no `prepare_inputs_for_generation` of its own (its own cut would run), and hands the
hook the sequence itself (a plain name: `input_ids[:, -1:]` is a loop cutting for itself). No mechanical fix: the
loop's own cut (the new tokens once the cache holds the rest) is its author's choice."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Related, Severity, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.cache_use import KIND as CACHE_USE
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, span
from hf_cache_lint.engine.text.text import contains
from hf_cache_lint.rules.hfc007_removed_cache_api.helper_reads import reads
from hf_cache_lint.rules.hfc010_hook_loses_cache.by_name import says_def

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_UPDATE = "_update_model_kwargs_for_generation"
_HOOK = "prepare_inputs_for_generation"


def findings(rule: Rule, analysis: Analysis) -> list[Finding]:
    target = analysis.context.target
    if "next_sequence_length" not in target.hook_signature("prepare_inputs") or reads(_UPDATE, target.version):
        return []  # the hook cuts by `cache_position` there, or the update raises KeyError first (HFC007)
    # Both names are whole words in the text however the calls are spaced: most modules say neither, and the walk
    # of the whole tree for the hook's calls is the costly part (0.1 s over transformers' own tree).
    text = analysis.text
    if not contains(text, _UPDATE) or not contains(text, _HOOK) or contains(text, "next_sequence_length") or \
            says_def(text, _HOOK) or analysis.tree is None:
        return []
    tree = analysis.tree
    updates = [use for use in analysis.of(CACHE_USE)
               if use.what == "model" and use.op == "call" and use.name == _UPDATE and
               not (_own(use.receiver) and not _in_module_function(tree, use.span))]
    calls = [c[:1] + c[2:] for c in hook_calls(analysis.tree)] if updates else []
    if not calls:
        return []
    out: list[Finding] = []
    for use in updates:
        positional = [a for a in use.arguments if a.name is None]
        named = next((a for a in use.arguments if a.name == "model_kwargs"), None)
        carried = named if named is not None else positional[1] if len(positional) > 1 else None
        if carried is None or not carried.text.strip().isidentifier() or _spread_parameter(analysis, use,
                                                                                            carried.text.strip()):
            continue
        at, receiver, ids, spread = calls[0]
        message = (f"`{use.receiver}.{_UPDATE}(...)` carries the step's cache into `{carried.text.strip()}`, which "
                   f"this code hands `{receiver}.{_HOOK}({ids}, **{spread})` (line {at.start.line}) without "
                   f"`next_sequence_length`: transformers {target}'s hook cuts the input to the new tokens by "
                   "`next_sequence_length` alone (since 5.3.0; generate passes it), so every step feeds the whole "
                   "sequence again onto the carried cache, which holds the prompt once more at each step "
                   f"(silently). Instead, cut the input yourself once the cache holds the rest (`{ids}[:, "
                   f"cache.get_seq_length():]`), or pass `next_sequence_length=` (5.3.0 and later), or let "
                   "`generate` run the steps")
        related = (Related(at, f"transformers {target}'s hook returns the whole of `{ids}` here"),)
        out.append(rule.report(use.span, message, severity=Severity.WARNING, related=related,
                               story="From 5.3.0 transformers' `prepare_inputs_for_generation` keeps only the last "
                                     "`next_sequence_length` tokens, a number generate passes it at each step. A "
                                     "decode loop that copies generate's calls of the hook and of "
                                     "`_update_model_kwargs_for_generation` without it gets the whole sequence "
                                     "back at every step, and feeds it onto the cache it carries."))
    return out


def direct_findings(rule: Rule, analysis: Analysis) -> list[Finding]:
    """`<model>.prepare_inputs_for_generation(..., past_key_values=<a cache>, ...)` called by the code itself without
    `cache_position=` or `next_sequence_length=` (ARGS' reward-guided search: `self.LLM(**self.LLM.
    prepare_inputs_for_generation(input_ids=tokens, ..., past_key_values=cached, use_cache=True))` with the whole
    sequence so far), on a model whose hook is transformers' own (the module defines or sets none). Where the
    target's hook cuts by `cache_position` (its signature has it and not `next_sequence_length`: 4.46-5.2) it reads
    `cache_position[-1]` once it has a cache: `TypeError: 'NoneType' object is not subscriptable`; where it cuts by
    `next_sequence_length` alone (5.3.0 on) it returns the whole sequence, fed again onto the cache (silently) (the
    oracle: this module's examples; `recall:heldout23/args_reward_search.py` ag_prepare_cached). Only an argument the
    interpreter knows is a cache (a forward's output cache carried to the call), not None nor unknown; from 5.3.0
    only where the input is a plain name (a slice is the code's own cut, which the hook keeps)."""
    target = analysis.context.target
    signature = releases.value("member:transformers.generation.utils.GenerationMixin.prepare_inputs_for_generation",
                               target.version) or ""
    cut_by_length = "next_sequence_length" in signature
    if not cut_by_length and "cache_position" not in signature:
        return []  # 4.41-4.45: each model's own hook
    # The calls first: most modules make none, and the text tests below are scans of the whole text at every
    # keystroke (`\bdef` has no literal prefix for `re`: 4.6 ms on a module of generation/utils.py's size without it).
    uses = [use for use in analysis.of(CACHE_USE)
            if use.what == "model" and use.op == "call" and use.name == _HOOK and not _own(use.receiver)]
    if not uses or says_def(analysis.text, _HOOK) or re.search(rf"\.\s*{_HOOK}\s*=[^=]", analysis.text):
        return []  # the module's own hook may cut for itself
    out: list[Finding] = []
    for use in uses:
        if any(a.name is None and a.text.startswith("*") for a in use.arguments) or \
                any(a.name in ("cache_position", "next_sequence_length", "cache") for a in use.arguments):
            continue
        cache = next((a for a in use.arguments if a.name == "past_key_values"), None)
        if cache is None or cache.kind != "cache":
            continue
        ids = next((a for a in use.arguments if a.name == "input_ids"), None) or \
            next((a for a in use.arguments if a.name is None), None)
        if cut_by_length and (ids is None or not ids.text.strip().isidentifier()):
            continue  # `input_ids[:, n:]`: the code cuts for itself (what 5.3's hook then keeps whole)
        call = f"`{use.receiver}.{_HOOK}(..., past_key_values={cache.text})`"
        if cut_by_length:
            message = (f"{call} without `next_sequence_length=`: transformers {target}'s hook cuts the input to the "
                       "new tokens by `next_sequence_length` alone (since 5.3.0; generate passes it), so it returns "
                       f"the whole input, and the forward runs it again onto `{cache.text}`, which holds it already "
                       "(silently). Instead, hand the hook only the tokens the cache lacks "
                       f"(`input_ids[:, {cache.text}.get_seq_length():]`), or pass `next_sequence_length=` (5.3.0 "
                       "and later)")
            severity = Severity.WARNING
        else:
            message = (f"{call} without `cache_position=`: transformers {target}'s hook cuts the input by "
                       "`cache_position` once it has a cache and reads `cache_position[-1]`, which is None here: "
                       "this raises TypeError: 'NoneType' object is not subscriptable. Instead, pass the positions "
                       f"of the new tokens (`cache_position=torch.arange({cache.text}.get_seq_length(), "
                       "input_ids.shape[1])`), or hand the hook only the tokens the cache lacks and no hook at all")
            severity = Severity.ERROR
        out.append(rule.report(use.span, message, severity=severity,
                               story="Transformers' `prepare_inputs_for_generation` cuts the input to the tokens the "
                                     "cache lacks with what generate passes it: `cache_position` up to 5.2.0, "
                                     "`next_sequence_length` from 5.3.0. Called by hand with a cache and neither, "
                                     "it raises (4.46-5.2) or cuts nothing (5.3 on)."))
    return out


def _bare(text: str) -> str:
    """`text` without its spaces and line continuations (`model . prepare_inputs_for_generation`)."""
    return re.sub(r"[\s\\]+", "", text)


def _own(receiver: str) -> bool:
    text = _bare(receiver)
    return text == "self" or text.startswith("super(")


def _in_module_function(tree: Node, at: Span) -> bool:
    """`at` is in a module-level function, not a method: its `self` is a model only where the interpreter runs it as
    one's method (set on `GenerationMixin`, EasyEdit's DeCo loop; handed to generate as `custom_generate`), and the
    arguments it hands the hook are its own."""
    node = tree.get_leaf_for_position((at.start.line, at.start.column), include_prefixes=True)
    while node is not None and node.type not in ("funcdef", "classdef", "file_input"):
        node = node.parent
    return node is not None and node.type == "funcdef" and node.parent is not None and \
        node.parent.type == "file_input"


def hook_calls(tree: Node) -> list[tuple[Span, Node, str, str, str]]:
    """Each `<receiver>.prepare_inputs_for_generation(<name>, **<name>)` in the module: (its span, its node, the
    receiver, the sequence's name, the spread dict's name). Receivers that are `self` or `super()` are left out."""
    found: list[tuple[Span, Node, str, str, str]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if not kids:
            continue
        stack.extend(kids)
        if node.type not in ("power", "atom_expr"):
            continue
        for i in range(1, len(kids) - 1):
            dot, call = kids[i], kids[i + 1]
            if dot.type != "trailer" or _bare(dot.get_code()) != f".{_HOOK}" or call.type != "trailer" or \
                    not call.children or call.children[0].value != "(":
                continue
            receiver = _bare("".join(k.get_code() for k in kids[:i]))
            if _own(receiver) and (receiver != "self" or not _in_module_function(tree, span(node))):
                continue
            arguments = _arguments(call)
            if len(arguments) != 2:
                continue
            first, second = arguments
            if first.type != "name" or second.type != "argument" or _bare(second.children[0].get_code()) != "**" or \
                    second.children[1].type != "name":
                continue
            found.append((span(node), node, receiver, first.value, second.children[1].value))
    found.sort(key=lambda c: (c[0].start.line, c[0].start.column))
    return found


def _arguments(call: Node) -> list[Node]:
    inner = call.children[1] if len(call.children) == 3 else None
    if inner is None:
        return []
    if inner.type == "arglist":
        return [k for k in inner.children if k.type != "operator" or k.value != ","]
    return [inner]


def _spread_parameter(analysis: Analysis, use: CacheUse, name: str) -> bool:
    """`name` is the `**` parameter of the function holding the call: a loop of generate's own, called with the dict
    generate prepared."""
    tree = analysis.tree
    if tree is None:
        return False
    scope = tree.get_leaf_for_position((use.span.start.line, use.span.start.column), include_prefixes=True)
    while scope is not None and scope.type not in ("funcdef", "file_input"):
        scope = scope.parent
    return scope is not None and scope.type == "funcdef" and any(
        p.star_count == 2 and p.name.value == name for p in scope.get_params())
