"""What a function defined inside another reads of the enclosing one, from the tree: the names its body mentions
(`_read_names`) and whether the enclosing function binds one again after the inner `def` or in a loop around it
(`_rebound`); for functions.py's `_captured`."""

from __future__ import annotations

from typing import Any

from hf_cache_lint.engine.interpreter.class_members import _leaves


def _read_names(node: Any, cache: dict[int, tuple[str, ...]]) -> tuple[str, ...]:
    """The names a function's body mentions (once each, in order), cached per node."""
    got = cache.get(id(node))
    if got is None:
        got = tuple(dict.fromkeys(leaf.value for leaf in _leaves(node.children[-1]) if leaf.type == "name"))
        cache[id(node)] = got
    return got


def _rebound(enclosing: Any, inner: Any, name: str, cache: dict[int, list[tuple[str, tuple[int, int]]]]) -> bool:
    """Whether the enclosing function binds `name` after `inner`'s `def`, or inside a loop around it
    (the inner function may then run with another value than the one it was defined with)."""
    defs = cache.get(id(enclosing))
    if defs is None:
        defs = [(leaf.value, leaf.start_pos) for leaf in _leaves(enclosing)
                if leaf.type == "name" and leaf.is_definition()]
        cache[id(enclosing)] = defs
    loops = []
    parent = inner.parent
    while parent is not None and parent is not enclosing:
        if parent.type in ("for_stmt", "while_stmt"):
            loops.append(parent)
        parent = parent.parent
    for n, pos in defs:
        if n != name or inner.start_pos <= pos <= inner.end_pos:
            continue
        if pos > inner.end_pos or any(loop.start_pos <= pos <= loop.end_pos for loop in loops):
            return True
    return False
