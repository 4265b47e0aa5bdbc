"""HFC010 on code that finds the cache among a transformers forward's parameters by its name: the parameter names of
`inspect.signature(<...>.forward)` searched for `"past_key_values"` (Optimum Intel's export patchers:
`list(signature.parameters.keys()).index("past_key_values")`, to find where the tracer passes the cache by
position), tested with `"past_key_values" in signature.parameters`, or looked up with
`signature.parameters["past_key_values"]`. From 5.24.0 every forward of transformers' models, decoder layers and
attention takes the cache as `cache` (the release table's decoder layer `forward`, the witness; the oracle:
`inspect.signature(m.forward).parameters` of a Llama's `LlamaForCausalLM`, `LlamaModel`, decoder layer and
attention, and of a Gemma 2's `Gemma2ForCausalLM`, hold `past_key_values` on 4.57.6 and 5.23.0, `cache` and no
`past_key_values` on 5.24.0 and 5.25.0), so `.index` raises `ValueError: 'past_key_values' is not in list`, the
subscript `KeyError: 'past_key_values'`, and the test is False (the code takes its no-cache path, silently).

Precision: the signature is of a `forward` (the inspected expression names one: `model.forward`,
`self.orig_forward`), not of `self.forward` in a class of the module's that defines its own `forward`; the function
holding the lookup never says `"cache"` (code that also looks for 5.24's name); `"past_key_values"` only (4.55's
`past_key_value` is gone from 4.56.0 on any reading). A forward's `__code__.co_varnames` is not claimed: transformers'
forwards are decorated wrappers whose own code holds none of the names on any release (the oracle: False for the
model, decoder layer and attention forwards on 4.57.6, 5.24.0 and 5.25.0; 5.23.0's attention alone holds it)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.output.analysis import Analysis
from hf_cache_lint.engine.syntax.nodes import Node, code, span, string_value

if TYPE_CHECKING:
    from hf_cache_lint.rules.base import Rule

_KEY = "past_key_values"
_NEW = "cache"
FIX_TITLE = "Look for `cache` first, then `past_key_values`"
_SIGNATURE = re.compile(r"\bsignature\(")


def findings(rule: Rule, analysis: Analysis) -> list[Finding]:
    text = analysis.text
    if (f'"{_KEY}"' not in text and f"'{_KEY}'" not in text) or not _SIGNATURE.search(text) or analysis.tree is None:
        return []
    target = analysis.context.target
    first = target.hook_parameter_gone("decoder_layer", _KEY)
    if first is None:
        return []
    now = "cache" if "cache" in target.hook_signature("decoder_layer") else None
    if now is None:
        return []
    out: list[Finding] = []
    for fn in (n for n in walk(analysis.tree) if n.type in ("funcdef", "file_input")):
        body = _own_nodes(fn)
        if any(n.type == "string" and string_value(n) == "cache" for n in body):
            continue  # it looks for 5.24's name as well
        signatures, names = _bound(body)
        for node in body:
            found = _lookup(node, signatures, names)
            if found is None:
                continue
            how, place = found
            where = f"transformers {target}"
            gone = f" (`{_KEY}` no longer since {first})" if first != str(target) else ""
            lead = f"`{code(place).strip()}`: {where}'s forwards take the cache as `{now}`{gone}"
            if how == "index":
                message = f"{lead}, so this raises ValueError: '{_KEY}' is not in list"
                severity = Severity.ERROR
            elif how == "subscript":
                message = f"{lead}, so this raises KeyError: '{_KEY}'"
                severity = Severity.ERROR
            else:
                message = (f"{lead}, so this test is False and the code takes its no-cache path: the cache is not "
                           "handed where the forward takes it (silently)")
                severity = Severity.WARNING
            at = span(place)
            out.append(rule.report(
                at, message, severity=severity, fixes=(_fix(how, place), rule.ignore_fix(analysis, at)),
                story=f"transformers {first} renamed the forwards' cache parameter to `{now}`. Code that finds the "
                      "cache among a forward's parameters by the old name no longer finds it. Looking for "
                      f"`\"{now}\"` first and `\"{_KEY}\"` after works on every release."))
    return out


def _fix(how: str, place: Node) -> Fix:
    """The name the forward takes at run time: `cache` where it has it, else `past_key_values` (the same parameter
    on every release)."""
    if how == "in":
        where = code(place.children[2]).strip()
        new = f'("{_NEW}" in {where} or "{_KEY}" in {where})'
        return Fix(FIX_TITLE, (Edit(span(place), new),), preferred=True)
    arg = place.children[-1].children[1]
    holder = "".join(code(k) for k in place.children[:-2]).strip() if how == "index" else \
        "".join(code(k) for k in place.children[:-1]).strip()
    return Fix(FIX_TITLE, (Edit(span(arg), f'"{_NEW}" if "{_NEW}" in {holder} else "{_KEY}"'),), preferred=True)


def _own_nodes(fn: Node) -> list[Node]:
    """The nodes of `fn`'s body (a module: its top level), nested functions and classes left to their own turn."""
    out: list[Node] = []
    stack = list(fn.children[-1].children) if fn.type == "funcdef" else list(fn.children)
    while stack:
        node = stack.pop()
        if node.type in ("funcdef", "classdef"):
            continue
        out.append(node)
        stack.extend(getattr(node, "children", ()))
    return out


def _bound(body: list[Node]) -> tuple[set[str], set[str]]:
    """The names bound to a forward's signature (`sig = inspect.signature(model.forward)`) and to its parameters
    or their names (`params = sig.parameters`, `names = list(sig.parameters.keys())`)."""
    signatures: set[str] = set()
    names: set[str] = set()
    assignments = [n for n in body if n.type == "expr_stmt" and len(n.children) == 3 and
                   n.children[0].type == "name" and code(n.children[1]).strip() == "="]
    for node in sorted(assignments, key=lambda n: n.start_pos):
        value = node.children[2]
        if _forward_signature(value):
            signatures.add(node.children[0].value)
        elif _parameters_of(value, signatures):
            names.add(node.children[0].value)
    return signatures, names


def _forward_signature(value: Node, text: str | None = None) -> bool:
    """`inspect.signature(<x>.forward)` / `signature(<x>_forward)` (`text`, else `value`'s code): the signature of
    a forward, not the module's own `self.forward` where the class holding `value` defines one."""
    text = re.sub(r"\s+", "", code(value) if text is None else text)
    m = re.fullmatch(r"(?:inspect\.)?signature\(([\w.]*forward)\)", text)
    if m is None:
        return False
    if m.group(1) == "self.forward":
        cls = value.parent
        while cls is not None and cls.type != "classdef":
            cls = cls.parent
        if cls is not None and re.search(r"\bdef\s+forward\s*\(", code(cls)):
            return False
    return True


_PARAMETERS = re.compile(r"(?:(?:list|tuple)\()?(.+?)\.parameters(?:\.keys\(\))?\)?")


def _parameters_of(value: Node, signatures: set[str]) -> bool:
    """`sig.parameters`, `list(sig.parameters)`, `list(sig.parameters.keys())`, `tuple(...)` of those, with `sig` a
    signature name or an inline `inspect.signature(<x>.forward)`."""
    return _parameters_ref_text(code(value), value, signatures, set())


def _lookup(node: Node, signatures: set[str], names: set[str]) -> tuple[str, Node] | None:
    """("index", the call) for `<names>.index("past_key_values")`, ("subscript", it) for
    `<params>["past_key_values"]`, ("in", the test) for `"past_key_values" in <params>`; else None."""
    if node.type == "comparison" and len(node.children) == 3 and code(node.children[1]).split() == ["in"] and \
            node.children[0].type == "string" and string_value(node.children[0]) == _KEY:
        return ("in", node) if _parameters_ref_text(code(node.children[2]), node, signatures, names) else None
    if node.type not in ("power", "atom_expr") or len(node.children) < 2:
        return None
    last = node.children[-1]
    if last.type != "trailer":
        return None
    receiver = "".join(code(k) for k in node.children[:-1])
    arg = last.children[1] if len(last.children) == 3 else None
    if arg is None or arg.type != "string" or string_value(arg) != _KEY:
        return None
    if last.children[0].value == "(" and receiver.endswith(".index"):
        head = node.children[:-2]
        return ("index", node) if head and _parameters_ref_text("".join(code(k) for k in head), node, signatures, names) \
            else None
    if last.children[0].value == "[" and _parameters_ref_text(receiver, node, signatures, names):
        return "subscript", node
    return None


def _parameters_ref_text(text: str, at: Node, signatures: set[str], names: set[str]) -> bool:
    text = re.sub(r"\s+", "", text)
    if text in names:
        return True
    m = _PARAMETERS.fullmatch(text)
    if m is None or text.startswith(("list(", "tuple(")) != text.endswith(")"):
        return False
    return m.group(1) in signatures or _forward_signature(at, m.group(1))
