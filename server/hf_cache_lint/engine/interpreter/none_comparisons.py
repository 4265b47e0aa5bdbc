"""`x is None` / `x is not None` decided by what `x` is on the current path (control_flow.py's `if`): a vendored
attention's `if past_key_value is not None:` around the cache it was given takes its one path. And `x == c` /
`x != c` of two constants (a flag a caller passes, `if rejected == False:`), or of a cache, tuple, list or model
output against None (`if past_key_values != None:`), decided as Python decides it."""

from __future__ import annotations

from collections.abc import Callable

from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    Cond,
    Const,
    ListVal,
    Maybe,
    Output,
    Ref,
    TupleVal,
    Value,
)
from hf_cache_lint.engine.syntax.nodes import Node, code


def none_compared(test: Node, value: Callable[[Node], Value], dead: Callable[[Cond], bool]) -> bool | None:
    """Whether `x is None` / `x is not None` holds on this path, decided by what `x` is (`value`): None for a None
    constant, not None for a cache, a tuple, a list, an output or a heap object (a model, the project's instance);
    for a value that differs by path, what every live option (`dead`: its condition excluded here) says alike. A
    vendored attention's `if past_key_value is not None:` around the cache it was given then takes its one path."""
    kids: list[Node] = list(getattr(test, "children", ()))
    if test.type != "comparison" or len(kids) != 3 or kids[2].type != "keyword" or kids[2].value != "None":
        return None
    op = code(kids[1]).split()
    if op not in (["is"], ["is", "not"]):
        return None
    verdict = _is_none(value(kids[0]), dead)
    return None if verdict is None else verdict == (op == ["is"])


# Operands evaluated a second time for the test (after control_flow.py evaluated the whole test): names, attribute
# chains and literals only, so no call in the test is run (and recorded) twice.
_SIMPLE = frozenset({"name", "keyword", "number", "string"})


def constants_compared(test: Node, value: Callable[[Node], Value], dead: Callable[[Cond], bool]) -> bool | None:
    """Whether `a == b` / `a != b` holds on this path: both sides constants (bool, int, str, None) on every live
    path, compared as Python compares them; or one side None and the other a cache, tuple, list or model output
    (none of which equals None: transformers' caches define no `__eq__`). A model output (which may be generate's
    tensor) and the project's own objects (`Ref`, which may define `__eq__`): undecided, as any other value."""
    kids: list[Node] = list(getattr(test, "children", ()))
    if test.type != "comparison" or len(kids) != 3 or kids[1].type != "operator" or kids[1].value not in ("==", "!="):
        return None
    if not (_simple(kids[0]) and _simple(kids[2])):
        return None
    left, right = _constants(value(kids[0]), dead), _constants(value(kids[2]), dead)
    if left is None or right is None:
        return None
    verdicts = {a == b for a in left for b in right}
    if len(verdicts) != 1:
        return None
    equal = verdicts.pop()
    return equal if kids[1].value == "==" else not equal


_NOT_NONE = object()  # a cache, tuple or list: equal to no constant this module compares it with


def _constants(v: Value, dead: Callable[[Cond], bool]) -> set[object] | None:
    """The values `v` has on the live paths, or None where one of them is no constant this module decides."""
    if type(v) is Const:
        return {v.value} if v.value is None or isinstance(v.value, (bool, int, str)) else None
    if isinstance(v, (CacheVal, TupleVal, ListVal)):
        return {_NOT_NONE}
    if type(v) is Maybe:
        out: set[object] = set()
        for o, c in v.options:
            if c is not None and dead(c):
                continue
            got = _constants(o, dead)
            if got is None:
                return None
            out |= got
        return out or None
    return None


def emptiness_tested(test: Node, value: Callable[[Node], Value]) -> bool | None:
    """Whether `x` / `not x` holds where `x` is the empty list the code built (`kv_rank = []` before a loop whose
    first pass fills it: `kv_rank = kv_block if not kv_rank else [...]`, Star-Attention): an empty list is falsy.
    Undecided for anything else (a list with items, a cache: its length decides)."""
    negated: bool = test.type == "not_test"
    name = test.children[1] if negated else test
    if name.type != "name" or name.value in ("True", "False", "None"):
        return None
    v = value(name)
    if type(v) is not ListVal or not v.empty:
        return None
    return negated


def _simple(node: Node) -> bool:
    if node.type in _SIMPLE:
        return True
    kids = list(getattr(node, "children", ()))
    if node.type == "factor":  # `-1`
        return bool(kids[0].value == "-") and kids[1].type == "number"
    # `self.flag`, `config.mode`: a name and attributes, no call or subscript
    return node.type in ("atom_expr", "power") and kids[0].type == "name" and all(
        k.type == "trailer" and k.children[0].value == "." for k in kids[1:])


def _is_none(v: Value, dead: Callable[[Cond], bool]) -> bool | None:
    if type(v) is Const:
        return v.value is None
    if isinstance(v, (CacheVal, TupleVal, ListVal, Output, Ref)):
        return False
    if type(v) is Maybe:
        verdicts = {_is_none(o, dead) for o, c in v.options if c is None or not dead(c)}
        return verdicts.pop() if len(verdicts) == 1 else None
    return None
