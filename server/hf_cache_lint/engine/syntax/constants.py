"""Literal constants as Python reads them: number values, and the truth of a condition made only of literals
(`if 1:`, `while True:`, `if not 0:`, `if -1.5:`), so code under them is live or dead exactly as it runs."""

from __future__ import annotations

import ast

from hf_cache_lint.engine.syntax.nodes import Node, string_value

_MISSING = object()
_KEYWORDS = {"None": None, "True": True, "False": False}


def number_value(text: str) -> int | float | complex | None:
    """`0x1f`, `1_000`, `1.5e3`, `2j`: the value Python gives the literal (None for an unfinished one, `1e`)."""
    if text.isascii() and text.isdigit() and (text[0] != "0" or text == "0"):
        # A plain decimal integer, the common case, without a parse (`ast.literal_eval` compiles: 40,000
        # numbers of one dict literal were a third of its check). Past int()'s digit limit: as literal_eval.
        try:
            return int(text)
        except ValueError:
            return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (int, float, complex)) and not isinstance(value, bool) else None


def literal_value(node: Node) -> object:
    """The value of an expression built only from literals and operators on them; `_MISSING` otherwise."""
    t = node.type
    if t == "number":
        n = number_value(node.value)
        return _MISSING if n is None else n
    if t == "keyword":
        return _KEYWORDS.get(node.value, _MISSING)
    if t in ("string", "strings"):
        s = string_value(node)
        return _MISSING if s is None else s
    if t == "factor" and len(node.children) == 2 and node.children[0].type == "operator":
        v = literal_value(node.children[1])
        op = node.children[0].value
        if isinstance(v, (int, float, complex)):  # bool included: `-True` is -1
            if op == "-":
                return -v
            if op == "+":
                return +v
            if op == "~" and isinstance(v, int):
                return ~v
        return _MISSING
    if t == "not_test":
        inner = literal_value(node.children[1])
        return _MISSING if inner is _MISSING else not inner
    if t in ("and_test", "or_test"):
        # Python's short circuit: `0 and x` is 0 whatever x is; `1 or x` is 1.
        operands = [c for c in node.children if c.type != "keyword"]
        result: object = _MISSING
        for operand in operands:
            result = literal_value(operand)
            if result is _MISSING:
                return _MISSING
            if (t == "and_test") != bool(result):
                return result
        return result
    if t == "atom":
        kids = node.children
        if len(kids) == 2 and kids[0].type == "operator" and kids[0].value in "([{":
            return () if kids[0].value == "(" else ([] if kids[0].value == "[" else {})
        if len(kids) == 3 and kids[0].type == "operator" and kids[0].value == "(" and kids[1].type != "testlist_comp":
            return literal_value(kids[1])
    return _MISSING


def literal_truth(node: Node) -> bool | None:
    """True/False when the condition is made only of literals (Python's truth of its value), else None."""
    v = literal_value(node)
    return None if v is _MISSING else bool(v)
