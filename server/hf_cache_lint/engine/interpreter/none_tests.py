"""Where the code tests a call's result against None: `x is None`, `x is not None`, `x == None`, `x != None`,
`not x`, `x or default`, `if x:` / `while x:` / `a if x else b`, on the call itself, on a local name bound to it,
or on the calls of a helper that returns it (one helper deep).

Read from the syntax tree alone (no value is needed): `cache.get_max_length()` returned None for a dynamic cache
on 4.4x and returns -1 on 5.x, and only a None test turns that into a different branch (engine/interpreter/
cache_uses.py records the test's text with the use).
"""

from __future__ import annotations

from collections.abc import Callable

from hf_cache_lint.engine.syntax.nodes import Node, code

_EQUALITY = frozenset({"is", "==", "!="})
_SCOPES = ("funcdef", "async_funcdef", "lambdef", "classdef", "file_input")


# A test found: its source text, and the expression whose value it tests, in the function holding the test (the
# call itself, or the call of the helper that returned it): a value made on a line the code never reaches is
# never tested (rules/hfc007_removed_cache_api drops the finding with engine/syntax/dominance.py).
_Found = tuple[str, Node]


def none_test(call: Node, caller: Callable[[Node], bool] | None = None) -> str | None:
    """The source text of the None test applied to the value of `call` (the `(...)` trailer ending the call), or
    None when the code never tests it so. `caller`: which call of the helper the value was reached through (a
    helper inlined at one call: that call's test counts, not another caller's); None: any call of it."""
    found = none_test_at(call, caller)
    return None if found is None else found[0]


def none_test_at(call: Node, caller: Callable[[Node], bool] | None = None) -> tuple[str, tuple[int, int]] | None:
    """`none_test`'s text, and where the value it tests is made in the function holding the test (parso's (line,
    column): the call, or the call of the helper that returned it), or None without a test."""
    expr = call.parent
    if expr is None or expr.children[-1] is not call:
        return None  # the call's result is read further (`.x`, `[i]`): not the value itself
    found = _tested(expr, helpers=1, caller=caller)
    return None if found is None else (found[0], found[1].start_pos)


def _tested(expr: Node, helpers: int, caller: Callable[[Node], bool] | None = None) -> _Found | None:
    direct = _direct_test(expr)
    if direct is not None:
        return direct[0], expr
    node = _unwrap_up(expr)
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "expr_stmt" and len(parent.children) == 3 and parent.children[1].type == "operator" \
            and parent.children[1].value == "=" and parent.children[2] is node and parent.children[0].type == "name":
        named = _name_tested(parent.children[0], helpers, caller)
        # the value is made here, unless a helper returned it (then at the caller's call, in the test's function)
        return None if named is None else (named[0], expr if _scope(named[1]) is _scope(expr) else named[1])
    if parent.type == "return_stmt" and helpers > 0:
        return _returned_tested(parent, helpers - 1, caller)
    return None


def _unwrap_up(node: Node) -> Node:
    """`(x)` is `x`: climb out of parentheses."""
    while node.parent is not None and node.parent.type == "atom" and len(node.parent.children) == 3 \
            and node.parent.children[0].type == "operator" and node.parent.children[0].value == "(":
        node = node.parent
    return node


def _direct_test(expr: Node) -> _Found | None:
    node = _unwrap_up(expr)
    parent = node.parent
    if parent is None:
        return None
    t = parent.type
    kids = parent.children
    if t == "comparison" and len(kids) == 3:
        op = kids[1]
        op_text = " ".join(leaf.value for leaf in getattr(op, "children", [op]))
        other = kids[2] if kids[0] is node else kids[0]
        if (op_text in _EQUALITY or op_text == "is not") and other.type == "keyword" and other.value == "None":
            return code(parent).strip(), parent
        return None
    if t == "not_test" or (t == "or_test" and kids[0] is node):
        return code(parent).strip(), parent
    if t in ("if_stmt", "while_stmt") and len(kids) > 1 and kids[1] is node:
        return f"{kids[0].value} {code(node).strip()}:", node
    if t == "test" and len(kids) == 5 and kids[2] is node:  # parso's node for `a if c else b`
        return code(parent).strip(), parent
    return None


def _scope(node: Node) -> Node:
    node = node.parent
    while node is not None and node.type not in _SCOPES:
        node = node.parent
    return node


def _name_tested(name: Node, helpers: int, caller: Callable[[Node], bool] | None = None) -> _Found | None:
    """A local name bound to the value: its later reads in the same scope (not in a nested function). None when one
    of them compares it with a number (`n < 0`, `n == -1`): the code already handles the 5.x answer."""
    scope = _scope(name)
    if scope is None:
        return None
    reads = [leaf for leaf in _names(scope, name.value) if leaf.start_pos > name.start_pos and _scope(leaf) is scope]
    if any(_numeric_compare(leaf) for leaf in reads):
        return None
    for leaf in reads:
        found = _direct_test(leaf)
        if found is None and helpers > 0:
            parent = _unwrap_up(leaf).parent
            if parent is not None and parent.type == "return_stmt":
                found = _returned_tested(parent, helpers - 1, caller)
        if found is not None:
            return found
    return None


def _numeric_compare(leaf: Node) -> bool:
    node = _unwrap_up(leaf)
    parent = node.parent
    if parent is None or parent.type != "comparison" or len(parent.children) != 3:
        return False
    other = parent.children[2] if parent.children[0] is node else parent.children[0]
    if other.type == "factor" and len(other.children) == 2 and other.children[0].value == "-":  # `-1`
        return bool(other.children[1].type == "number")
    # `n < 0`, `n > 0`, `n >= 1`: tells -1 from a maximum; `n >= 5` compares a length and takes -1 as a small one.
    return bool(other.type == "number" and other.value in ("0", "1"))


def _returned_tested(ret: Node, helpers: int, caller: Callable[[Node], bool] | None = None) -> _Found | None:
    """`return value` in a plain function: the calls `f(...)` of the module, each tested as the value itself."""
    function = _scope(ret)
    if function is None or function.type not in ("funcdef", "async_funcdef"):
        return None
    fname = function.children[1].value
    module = function
    while module.parent is not None:
        module = module.parent
    for leaf in _names(module, fname):
        expr = leaf.parent
        if expr is None or expr.type not in ("power", "atom_expr") or len(expr.children) != 2 \
                or expr.children[0] is not leaf or expr.children[1].type != "trailer" \
                or expr.children[1].children[0].value != "(" or (caller is not None and not caller(expr)):
            continue
        found = _tested(expr, helpers)
        if found is not None:
            return found
    return None


def _names(root: Node, value: str) -> list[Node]:
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            if node.type == "name" and node.value == value:
                out.append(node)
            continue
        stack.extend(kids)
    return sorted(out, key=lambda n: n.start_pos)


__all__ = ["none_test", "none_test_at"]
