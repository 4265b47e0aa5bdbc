"""A method call and its fallback in a `try` / `except` pair, read from the syntax tree alone:

    try:
        n = cache.get_max_cache_shape()   # the try's call
    except Exception:
        n = cache.get_max_length()        # the handler's call, on the same receiver

The handler runs only when the try's body raises. Real code writes this pair to span releases (ChatTTS's
`_prepare_generation_inputs`): where the try's method exists, the handler's call never runs; where it is gone, the
name holds what the handler's call returns. `pair` tells each call of such a pair the other's method
(engine/interpreter/cache_uses.py records it with the use; HFC007 reads it)."""

from __future__ import annotations

from hf_cache_lint.engine.syntax.nodes import Node, code


def pair(call: Node) -> str | None:
    """For the `(...)` trailer of `receiver.method(...)` bound to a name as the only statement of a `try` body or of
    one of its `except` handlers, the other side's `receiver.method(...)` bound to the same name: "except:<method>"
    (this call is the try's; the handler calls <method>) or "try:<method>" (this call is a handler's). None
    otherwise."""
    mine = _bound_call(call)
    if mine is None:
        return None
    stmt, name, receiver = mine
    block = stmt.parent.parent if stmt.parent is not None and stmt.parent.type == "simple_stmt" else None
    if block is None:
        return None
    suite, owner = (block, block.parent) if block.type == "suite" else (stmt.parent, block)
    if owner is None or owner.type != "try_stmt":
        return None
    kids = owner.children
    at = next((i for i, k in enumerate(kids) if k is suite), None)
    if at is None or _only(suite) is None:
        return None
    if at == 2:  # the try's body: its handlers' calls
        for i in range(3, len(kids) - 1):
            if _is_handler(kids[i]):
                other = _only_call(kids[i + 2])
                if other is not None and other[0] == name and other[1] == receiver:
                    return f"except:{other[2]}"
        return None
    if at >= 5 and _is_handler(kids[at - 2]):
        other = _only_call(kids[2])
        if other is not None and other[0] == name and other[1] == receiver:
            return f"try:{other[2]}"
    return None


def _is_handler(node: Node) -> bool:
    return bool(node.type == "except_clause" or (node.type == "keyword" and node.value == "except"))


def _only(suite: Node) -> Node | None:
    """The one statement of a block (a `suite`, or a simple statement after the colon)."""
    if suite.type == "simple_stmt":
        return suite
    stmts = [k for k in suite.children if k.type not in ("newline",) and getattr(k, "value", None) != "\n"]
    return stmts[0] if len(stmts) == 1 and stmts[0].type == "simple_stmt" else None


def _only_call(suite: Node) -> tuple[str, str, str] | None:
    """`name = receiver.method(...)` as a block's one statement: (name, receiver text, method)."""
    simple = _only(suite)
    if simple is None or len(simple.children) != 2:
        return None
    stmt = simple.children[0]
    if stmt.type != "expr_stmt" or len(stmt.children) != 3 or stmt.children[0].type != "name":
        return None
    value = stmt.children[2]
    kids = getattr(value, "children", [])
    if value.type not in ("power", "atom_expr") or len(kids) < 3 or kids[-1].type != "trailer" \
            or kids[-1].children[0].value != "(" or kids[-2].type != "trailer" or kids[-2].children[0].value != ".":
        return None
    return stmt.children[0].value, "".join(code(k).strip() for k in kids[:-2]), kids[-2].children[1].value


def _bound_call(call: Node) -> tuple[Node, str, str] | None:
    """The `name = receiver.method(...)` statement `call` ends: (the statement, name, receiver text)."""
    value = call.parent
    stmt = value.parent if value is not None else None
    if value is None or stmt is None or stmt.type != "expr_stmt" or len(stmt.children) != 3 \
            or stmt.children[2] is not value or stmt.children[0].type != "name" or value.children[-1] is not call:
        return None
    kids = value.children
    if len(kids) < 3 or kids[-2].type != "trailer" or kids[-2].children[0].value != ".":
        return None
    return stmt, stmt.children[0].value, "".join(code(k).strip() for k in kids[:-2])
