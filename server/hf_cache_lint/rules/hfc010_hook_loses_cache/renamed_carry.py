"""HFC010 on a decode loop of the code's own that carries the cache with transformers'
`_update_model_kwargs_for_generation(outputs, model_kwargs)` into a dict it hands to a `prepare_inputs_for_generation`
of the module's own (`model.prepare_inputs_for_generation(input_ids, **model_kwargs)`, VibeVoice's streaming CFG
loop), where that hook takes the cache as `past_key_values` only: from 5.24.0 transformers' update stores the step's
cache under `"cache"` (the release table's `cache_reaches_hooks_as_cache`: `model_kwargs["cache"]` in the 5.24.0
wheel's generation utils), so the hook's `past_key_values` is the dict's old entry or None and the step runs without
the cache it carried (silently; the oracle: `recall:heldout13/vibevoice_windowed_cfg.py` vv_negative_update on
5.24.0 and 5.25.0, OK on 4.57.6 and 5.23.0). hand_loop.py reads such a loop handing the dict to transformers' own
hook, which takes `cache=`.

The finding stands on the update's call, the statement that hands the cache on (as hand_loop's). Precision: the
receiver is not `self` or `super()`; the module's own `_update_model_kwargs_for_generation` (an override on the
model class), where it defines one, calls `super()`'s (transformers' store); the dict is later spread into a hook
call in the same function; the module's hook takes `past_key_values` and never says `"cache"`. No fix: where the
hook should look is the code's choice (`model_kwargs.get("cache", model_kwargs.get("past_key_values"))`)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, span
from hf_cache_lint.engine.text.text import contains
from hf_cache_lint.rules.hfc010_hook_loses_cache.by_name import defs_named, dotted_calls, says_def
from hf_cache_lint.rules.hfc010_hook_loses_cache.hand_loop import hook_calls

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_UPDATE = "_update_model_kwargs_for_generation"
_HOOK = "prepare_inputs_for_generation"


def findings(rule: Rule, analysis: Analysis) -> list[Finding]:
    text = analysis.text
    if not contains(text, _UPDATE) or analysis.tree is None:
        return []
    target = analysis.context.target
    first = target.behaviour_since("cache_reaches_hooks_as_cache")
    if first is None:
        return []
    # The defs and calls by their names' places in the text, not a walk of the module (generation/utils.py says both
    # names and defines both: ~32,000 nodes walked at every keystroke there).
    tree = analysis.tree
    hooks = defs_named(tree, text, _HOOK)
    if not hooks or not says_def(text, _HOOK) or any(not _old_name_only(d) for d in hooks):
        return []  # a hook of the module's that reads `cache` too (or takes no `past_key_values`)
    if any("super()" not in re.sub(r"[\s\\]+", "", d.get_code()) and _is_method(d)
           for d in defs_named(tree, text, _UPDATE)):
        return []  # the model's own update stores where it stores: not transformers' key
    calls = dotted_calls(tree, text, _UPDATE)
    return _reported(rule, analysis, calls) if calls else []


def _reported(rule: Rule, analysis: Analysis, nodes: list[Node]) -> list[Finding]:
    """The findings on the update calls among `nodes` (`power`/`atom_expr` nodes, in a walk's order)."""
    target = analysis.context.target
    first = target.behaviour_since("cache_reaches_hooks_as_cache")
    spread = {(id(_function(node)), dict_name) for _, node, _, _, dict_name in hook_calls(analysis.tree)}
    out: list[Finding] = []
    for node in nodes:
        kids = node.children
        for i in range(1, len(kids) - 1):
            dot, call = kids[i], kids[i + 1]
            if dot.type != "trailer" or re.sub(r"[\s\\]+", "", dot.get_code()) != f".{_UPDATE}" or \
                    call.type != "trailer" or call.children[0].get_code() != "(":
                continue
            receiver = re.sub(r"[\s\\]+", "", "".join(k.get_code() for k in kids[:i]))
            if receiver == "self" or receiver.startswith("super("):
                continue
            arguments = [a for a in (call.children[1].children if len(call.children) == 3 and
                                     call.children[1].type == "arglist" else call.children[1:2])
                         if a.type != "operator"]
            if len(arguments) < 2 or arguments[1].type != "name":
                continue
            carried = arguments[1].value
            if (id(_function(node)), carried) not in spread:
                continue
            name = dot.children[1]
            out.append(rule.report(
                span(name),
                f"`{receiver}.{_UPDATE}(...)` carries the step's cache into `{carried}`, which this code hands "
                f"the module's own `{_HOOK}` (it takes the cache as `past_key_values`): transformers {target} "
                f"stores it there as `\"cache\"` (since {first}), so the hook's `past_key_values` is not that cache "
                "and the step runs without it (silently). Instead, have the hook take the cache as `cache` too "
                "(`past_key_values = kwargs.pop(\"cache\", past_key_values)`)",
                severity=Severity.WARNING,
                story="From 5.24.0 generate's helpers carry the cache in `model_kwargs` under `\"cache\"`, and hand "
                      "it to the hook as `cache=`. A loop of the code's own that calls transformers' update and its "
                      "own hook by hand loses the cache where the hook looks only under the old name."))
    return out


def _old_name_only(fn: Node) -> bool:
    names = [p.name.value for p in fn.get_params()]
    # The body's code only where the names leave it to decide: generation/utils.py's own hook (~200 lines) takes
    # `cache` from 5.24.0, and its code was joined at every keystroke.
    return "past_key_values" in names and "cache" not in names and \
        not re.search(r"""["']cache["']""", fn.children[-1].get_code())


def _is_method(fn: Node) -> bool:
    parent = fn.parent
    while parent is not None and parent.type not in ("classdef", "file_input", "funcdef"):
        parent = parent.parent
    return parent is not None and parent.type == "classdef"


def _function(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "funcdef":
        parent = parent.parent
    return parent
