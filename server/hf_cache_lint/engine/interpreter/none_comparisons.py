"""`x is None` / `x is not None` decided by what `x` is on the current path (control_flow.py's `if`): a vendored
attention's `if past_key_value is not None:` around the cache it was given takes its one path."""

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


def _is_none(v: Value, dead: Callable[[Cond], bool]) -> bool | None:
    if type(v) is Const:
        return v.value is None
    if isinstance(v, (CacheVal, TupleVal, ListVal, Output, Ref)):
        return False
    if type(v) is Maybe:
        verdicts = {_is_none(o, dead) for o, c in v.options if c is None or not dead(c)}
        return verdicts.pop() if len(verdicts) == 1 else None
    return None
