"""How many names an unpacking target binds (`a, b = ...`, `for k, v in ...`, a loop body's `k, v = layer`), read
from the tree: for the cache uses that iterate or unpack a cache (control_flow.py, statements.py, comprehensions)."""

from __future__ import annotations

from hf_cache_lint.engine.syntax.nodes import Node


def unpacked_item(name: str, body: Node) -> int | None:
    """How many names a loop's body unpacks its loop variable `name` into, at its first plain `a, b = name` (not in a
    nested function or class); None when it does not."""
    stack = [body]
    while stack:
        node = stack.pop()
        t = node.type
        if t in ("funcdef", "classdef", "lambdef", "async_funcdef"):
            continue
        if t == "expr_stmt":
            kids = node.children
            if len(kids) == 3 and kids[1].type == "operator" and kids[1].value == "=" and kids[2].type == "name" \
                    and kids[2].value == name and unpacks(kids[0]):
                return count_targets(kids[0])
            continue
        stack.extend(reversed(getattr(node, "children", ())))
    return None


def unpacks(target: Node) -> bool:
    """`a, b = ...` / `(a, b) = ...` / `[a, b] = ...`: a target that unpacks what it is given."""
    t = target.type
    return t in ("testlist_star_expr", "exprlist") or (t == "atom" and target.children[0].value in "([")


def count_targets(target: Node) -> int | None:
    """How many names `target` unpacks each value into (None: a single name, or a starred target)."""
    inner = target.children[1] if target.type == "atom" and len(target.children) == 3 else target
    if inner.type not in ("testlist_star_expr", "exprlist", "testlist_comp"):
        return None
    items = [c for c in inner.children if c.type != "operator"]
    return None if any(c.type == "star_expr" for c in items) else len(items)
