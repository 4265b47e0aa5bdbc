"""HFC010 on a decode loop of the code's own that hands transformers' `prepare_inputs_for_generation(input_ids,
**kwargs)` the whole sequence and carries each step's cache into that dict itself: `kwargs["past_key_values"] =
outputs.past_key_values` in the loop, or in a function or method of the module it hands the dict to (Proxy-Tuning's
DExperts: `base_kwargs = self._update_model_kwargs_for_generation(base_outputs, base_kwargs)`, its own method, not the
model's). Transformers' hook cuts the input to the new tokens with what generate passes it and such a loop does not:
`cache_position` up to 5.2.0, where with a cache and no positions it reads `cache_position[-1]` and raises `TypeError:
'NoneType' object is not subscriptable` at the second step (4.46-5.2; the oracle: 4.57.6); `next_sequence_length`
from 5.3.0, where it returns the whole sequence, which the forward runs again onto the carried cache (silently; the
oracle: 5.23.0, 5.24.0, 5.25.0). hand_loop.py reads the same loop carrying the cache with the model's own
`_update_model_kwargs_for_generation`.

The finding stands on the hook's call: the code's own store does the same on every release, the hook's call is
where the behaviour changes (and where 4.x's TypeError is raised). Precision: the module never says `cache_position`
or `next_sequence_length` (the code may pass them), defines or sets no `prepare_inputs_for_generation` of its own,
the call's receiver is not `self` or `super()`, it hands the hook a plain name and a `**` dict that is not the `**`
parameter of the function holding it, and the call is in a loop. One finding per loop, on its first such call (at
4.x that call raises before the others run; Proxy-Tuning's loop calls the hook of three models in turn). No
mechanical fix."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, span
from hf_cache_lint.engine.text.text import contains
from hf_cache_lint.rules.hfc010_hook_loses_cache.by_name import says_def
from hf_cache_lint.rules.hfc010_hook_loses_cache.hand_loop import hook_calls

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_HOOK = "prepare_inputs_for_generation"
_SIGNATURE = "member:transformers.generation.utils.GenerationMixin.prepare_inputs_for_generation"


def findings(rule: Rule, analysis: Analysis) -> list[Finding]:
    text = analysis.text
    if not contains(text, _HOOK) or not contains(text, "past_key_values") or contains(text, "cache_position") or \
            contains(text, "next_sequence_length") or analysis.tree is None:
        return []  # word tests carried over the edit (text.contains), not scans of the whole text at every keystroke
    if says_def(text, _HOOK) or re.search(rf"\.\s*{_HOOK}\s*=[^=]", text):
        return []  # the module's own hook may cut for itself
    target = analysis.context.target
    signature = releases.value(_SIGNATURE, target.version) or ""
    by_length = "next_sequence_length" in signature
    if not by_length and "cache_position" not in signature:
        return []  # 4.41-4.45: each model's own hook
    out: list[Finding] = []
    loops: dict[int, list[str]] = {}  # each loop's calls found, by the loop's id: one finding per loop, at its first
    for at, node, receiver, ids, spread in hook_calls(analysis.tree):
        fn = _enclosing(node, ("funcdef",))
        loop = _loop(node, fn) if fn is not None else None
        if fn is None or loop is None or any(p.star_count == 2 and p.name.value == spread for p in fn.get_params()):
            continue
        if not _carries(fn, spread):
            continue
        call = f"`{receiver}.{_HOOK}({ids}, **{spread})`"
        if id(loop) in loops:
            loops[id(loop)].append(call)  # the same loop's next call: the first one raises, or is named already
            continue
        loops[id(loop)] = [call]
        if by_length:
            message = (f"{call} hands transformers' hook the whole sequence and the cache the loop carries in "
                       f"`{spread}`, without `next_sequence_length`: transformers {target}'s hook cuts the input to "
                       "the new tokens by `next_sequence_length` alone (since 5.3.0; generate passes it), so every "
                       "step feeds the whole sequence again onto the carried cache (silently). Instead, cut the "
                       f"input yourself once the cache holds the rest (`{ids}[:, cache.get_seq_length():]`), or let "
                       "`generate` run the steps")
            severity = Severity.WARNING
        else:
            message = (f"{call} hands transformers' hook the cache the loop carries in `{spread}` and no "
                       f"`cache_position`: transformers {target}'s hook cuts the input by `cache_position` once it "
                       "has a cache and reads `cache_position[-1]`, which is None here: from the second step this "
                       "raises TypeError: 'NoneType' object is not subscriptable. Instead, carry the positions of the "
                       f"new tokens in `{spread}` (`cache_position`), or let `generate` run the steps")
            severity = Severity.ERROR
        name = next((n for n in walk(node) if n.type == "name" and n.value == _HOOK), None)
        out.append(rule.report(span(name) if name is not None else at, message, severity=severity,
                               story="Transformers' `prepare_inputs_for_generation` cuts the input to the tokens the "
                                     "cache lacks with what generate passes it: `cache_position` up to 5.2.0, "
                                     "`next_sequence_length` from 5.3.0. A loop of the code's own handing it a "
                                     "cache and neither raises (4.46-5.2) or gets the whole sequence back (5.3 on)."))
    return out


def _enclosing(node: Node, types: tuple[str, ...]) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in types:
        parent = parent.parent
    return parent


def _loop(node: Node, fn: Node) -> Node | None:
    """The innermost `for`/`while` of `fn` around `node`."""
    parent = node.parent
    while parent is not None and parent is not fn:
        if parent.type in ("for_stmt", "while_stmt"):
            return parent
        parent = parent.parent
    return None


def _stores_cache(body: Node, name: str) -> bool:
    """`body` holds `<name>["past_key_values"] = <x>.past_key_values`."""
    want = f'{name}["past_key_values"]='
    for node in walk(body):
        if node.type == "expr_stmt" and len(node.children) == 3 and node.children[1].type == "operator" and \
                node.children[1].value == "=":
            left = re.sub(r"[\s\\]+", "", node.children[0].get_code()).replace("'", '"')
            right = re.sub(r"[\s\\]+", "", node.children[2].get_code())
            if left + "=" == want and right.endswith(".past_key_values"):
                return True
    return False


def _carries(fn: Node, spread: str) -> bool:
    """The function stores a forward's cache into `spread` itself, or rebinds `spread` to what a function or method
    of the module returns when handed it (`spread = self.update(outputs, spread)`) whose body stores one into that
    parameter."""
    if _stores_cache(fn.children[-1], spread):
        return True
    module = fn
    while module.parent is not None:
        module = module.parent
    cls = _enclosing(fn, ("classdef",))
    for node in walk(fn.children[-1]):
        if node.type != "expr_stmt" or len(node.children) != 3 or node.children[0].get_code().strip() != spread:
            continue
        value = node.children[2]
        m = re.fullmatch(r"(self\.)?(\w+)\((.*)\)", re.sub(r"[\s\\]+", "", value.get_code()), re.S)
        if m is None:
            continue
        scope = cls.children[-1] if m.group(1) and cls is not None else module if not m.group(1) else None
        callee = next((d for d in walk(scope) if d.type == "funcdef" and d.children[1].value == m.group(2)),
                      None) if scope is not None else None
        if callee is None:
            continue
        args = m.group(3).split(",")
        if spread not in args:
            continue
        params = [p.name.value for p in callee.get_params() if p.star_count == 0 and p.name.value != "self"]
        at = args.index(spread)
        if at < len(params) and _stores_cache(callee.children[-1], params[at]):
            return True
    return False
