"""HFC010 on a `prepare_inputs_for_generation` override that takes generate's `position_ids` (as a parameter, or
`kwargs.get("position_ids")`) and cuts them only when it builds them itself (under `position_ids is None`), while it
cuts `input_ids` to the new tokens once it has a cache: the 4.3x Llama template's hook (LLaVA-style models,
KVMix, CEPE, AlpacaFarm, VibeVoice's ASR head). From 5.2.0 generate builds `position_ids` for the whole sequence
before the first step (`GenerationMixin._prepare_position_ids_for_generation`, the release table's member; called
where the model's forward takes `position_ids`) and extends them at each step: the hook finds them given, hands the
model positions for every token with only the new ones, and the attention's shapes disagree (the oracle: this
module's example raises `RuntimeError: mat1 and mat2 shapes cannot be multiplied` on 5.3.0, 5.4.0, 5.13.1, 5.19.0,
5.23.0, 5.24.0 and 5.25.0 and runs on 4.57.6 and 5.0.0; `recall:heldout14/kvmix_legacy_llama.py`,
`heldout22/cepe_context_qa.py`, `heldout19/alpaca_farm_ppo_models.py`, `heldout13/vibevoice_windowed_cfg.py` on
5.23.0). Where the release passes the cache as `cache=` (5.24.0) and the hook reads only `past_key_values`, it never
cuts (`_lost`'s finding says what it does instead); a hook reading both names cuts and raises there too.

Precision: the finding needs a cut of `input_ids` that does not read `cache_position` (5.4's generate stops passing
it: such a hook raises on that first) and a hook whose every use of the cache runs on any cache the release passes
(a truth or None test, `isinstance`, `.get_seq_length()`, handing it on; the legacy pair's `isinstance(...,
tuple)` branch aside): a subscript, another member or a helper given the cache may raise first (HFC009's, HFC007's
findings). Where it holds, the hook raises at the first step it cuts, so `_truthy_cuts`' finding on the same hook
(which says the prompt is cut silently) is not made. Reported on the parameter that takes the positions (the
`**kwargs` they arrive in, where the body reads them from it), as every finding on what a hook takes (docs.md). No
mechanical fix: the cut of the given positions (`position_ids[:, -input_ids.shape[1]:]`) belongs in the hook's own
flow."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Finding, Severity, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.hook_override import HookOverride
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, span

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_CUT = re.compile(r"\binput_ids[\s\\]*=[\s\\]*input_ids[\s\\]*\[[^\n]*")
_SLICE = re.compile(r"\bposition_ids[\s\\]*=[\s\\]*position_ids[\s\\]*\[")
_HANDED = re.compile(r"""["']position_ids["'][\s\\]*:[\s\\]*position_ids\b""")
# `past_key_values = kwargs.pop("cache", past_key_values)`: a hook reading 5.24's name too (`hook.compat`).
_COMPAT = re.compile(r"""past_key_values=\w+\.(pop|get)\(["']cache["']""")
_BUILDS = "_prepare_position_ids_for_generation"


def finding(rule: Rule, analysis: Analysis, hook: HookOverride) -> Finding | None:
    target = analysis.context.target
    if hook.kind != "prepare_inputs" or "past_key_values" not in hook.parameters:
        return None
    if target.behaviour_since("cache_reaches_hooks_as_cache") is not None and not hook.compat:
        return None  # `past_key_values` is None there: the hook never cuts
    if releases.member("transformers.generation.utils", "GenerationMixin", _BUILDS, target.version) is None:
        return None  # generate hands the hook no positions: it builds and cuts its own
    fn = _funcdef(analysis, hook)
    if fn is None:
        return None
    body = fn.children[-1]
    code = body.get_code()
    where = _taken(fn, hook.var_keyword, code)
    cuts = [m.group(0) for m in _CUT.finditer(code)]
    if where is None or not cuts or any("cache_position" in c for c in cuts) or not _HANDED.search(code):
        return None
    if not _only_when_built(body) or not _plain_cache_reads(body):
        return None
    first = _first(target)
    since = f" (since {first})" if first != str(target) else ""
    message = (f"{hook.target} takes `position_ids` and cuts them only where it builds them itself (under "
               f"`position_ids is None`), but transformers {target}'s generate hands the hook `position_ids=` for "
               f"the whole sequence at every step{since}: once the hook cuts `input_ids` to the new tokens, it hands "
               "the model positions for every token with only the new ones, and the attention's shapes disagree "
               "(on a Llama: RuntimeError: mat1 and mat2 shapes cannot be multiplied). Instead, cut the given "
               "positions as the input (`position_ids = position_ids[:, -input_ids.shape[1]:]`)")
    return rule.report(where, message, severity=Severity.ERROR,
                       story=f"From {first} `generate` builds the position ids of the whole sequence before the "
                             "first step and passes them to `prepare_inputs_for_generation` at each step, cutting "
                             "them in its own hook. A 4.x override that builds and cuts its own only when none are "
                             "given now hands the model positions for every token with the new ones only.")


def _first(target: Target) -> str:
    """The first release of the run up to the target whose generate builds the positions (the table's member)."""
    version = target.version
    first = version
    for r in reversed([r for r in releases.known_releases() if r <= version]):
        if releases.member("transformers.generation.utils", "GenerationMixin", _BUILDS, r) is None:
            break
        first = r
    return str(first)


def _taken(fn: Node, kw: str | None, code: str) -> Span | None:
    """The parameter the positions arrive in: `position_ids` itself, else the `**` parameter the body reads them
    from (`kwargs.get("position_ids")`)."""
    spread: Span | None = None
    for p in fn.get_params():
        if p.star_count == 0 and p.name.value == "position_ids":
            return span(p.name)
        if p.star_count == 2 and kw is not None and p.name.value == kw and \
                re.search(rf"""\b{re.escape(kw)}[\s\\]*\.[\s\\]*get[\s\\]*\([\s\\]*["']position_ids["']""", code):
            spread = span(p.name)
    return spread


def _funcdef(analysis: Analysis, hook: HookOverride) -> Node | None:
    tree = analysis.tree
    if tree is None:
        return None
    node = tree.get_leaf_for_position((hook.span.start.line, hook.span.start.column))
    while node is not None and node.type != "funcdef":
        node = node.parent
    return node


def _only_when_built(body: Node) -> bool:
    """Every `position_ids = position_ids[...]` of the body sits under a test of `position_ids is None`."""
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "expr_stmt" and _SLICE.search(node.get_code()) and not _under_none_test(node):
            return False
        stack.extend(getattr(node, "children", ()))
    return True


def _under_none_test(node: Node) -> bool:
    while node is not None and node.type != "funcdef":
        parent = node.parent
        if parent is not None and parent.type == "if_stmt":
            kids = parent.children
            for i, k in enumerate(kids[:-1]):
                if k.type == "keyword" and k.value in ("if", "elif") and \
                        re.search(r"\bposition_ids[\s\\]+is[\s\\]+None\b", kids[i + 1].get_code()):
                    return True
        node = parent
    return False


def _plain_cache_reads(body: Node) -> bool:
    """Every use of the cache parameter in the body is one that runs on any cache the release passes: a truth or
    None test, `isinstance(...)`, `.get_seq_length()`, handing it on (a dict entry, a keyword), the read of 5.24's
    name into it; uses inside an `if isinstance(past_key_values, tuple):` branch (the legacy pair's, not taken for a
    transformers cache) aside. Anything else (a subscript, another member, a helper given it) may raise first."""
    stack = [body]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is not None:
            if node.type == "expr_stmt" and _COMPAT.match(_bare(node.get_code())):
                continue
            if node.type == "if_stmt" and _tuple_branch(node):
                stack.extend(kids[4:])  # its `elif`/`else` parts: the branch a transformers cache takes
                continue
            stack.extend(kids)
            continue
        if node.type == "name" and node.value == "past_key_values" and not _plain(node):
            return False
    return True


def _bare(text: str) -> str:
    """`text` without its spaces and line continuations."""
    return re.sub(r"[\s\\]+", "", text)


def _tuple_branch(if_stmt: Node) -> bool:
    return _bare(if_stmt.children[1].get_code()) == "isinstance(past_key_values,tuple)"


def _plain(leaf: Node) -> bool:
    parent = leaf.parent
    kids = parent.children
    if parent.type == "comparison":
        return len(kids) == 3 and _bare(kids[2].get_code()) == "None" and _bare(kids[1].get_code()) in ("is", "isnot")
    if parent.type in ("dictorsetmaker", "argument"):
        return kids[0] is not leaf  # a value handed on, not a key
    if parent.type == "arglist":  # `isinstance(past_key_values, Cache)`
        call = parent.parent.parent if parent.parent is not None else None
        return call is not None and _bare(call.children[0].get_code()) == "isinstance"
    if parent.type in ("power", "atom_expr"):
        return kids[0] is leaf and len(kids) == 3 and _bare(kids[1].get_code()) == ".get_seq_length" and \
            _bare(kids[2].get_code()) == "()"
    return parent.type in ("not_test", "and_test", "or_test", "if_stmt", "ternary")
