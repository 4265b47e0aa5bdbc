"""The tree shapes the hook readers share (hook_signatures.py, hook_returns.py, hooks.py, hook_classes.py,
hook_registrations.py, backbone_generate.py, fixed_forwards.py): every node under one in order (`walk`), a suite's
statements (`suite`), a class's bases as written (`base_items`), a read by key (`x["key"]`, `x.get("key")`:
`_key_read`)."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.facts.hook_override import ReadHow
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.syntax.nodes import Node, call_args, string_value


def walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(getattr(n, "children", ())))


def base_items(bases: Node) -> list[Node]:
    """The entries of a class's base list (`cls.children[3]`): each base, keyword arguments included, without the
    commas."""
    return [c for c in bases.children if c.type != "operator"] if bases.type == "arglist" else [bases]


def _key_read(node: Node) -> tuple[str, ReadHow, Node] | None:
    """`x["key"]` -> (key, "subscript", that trailer); `x.get("key", ...)` / `x.pop("key", ...)` -> (key, "get",
    the call's trailer)."""
    kids = node.children
    if len(kids) >= 2 and is_trailer(kids[1], "[") and len(kids[1].children) == 3:
        key = string_value(kids[1].children[1])
        return (key, "subscript", kids[1]) if key is not None else None
    if len(kids) >= 3 and is_trailer(kids[1], ".") and kids[1].children[1].value in ("get", "pop") and \
            is_trailer(kids[2], "("):
        args = call_args(kids[2])
        key = string_value(args[0].value) if args and args[0].name is None and not args[0].star else None
        return (key, "get", kids[2]) if key is not None else None
    return None


def suite(suite: Node) -> list[Node]:
    return [c for c in getattr(suite, "children", ()) if c.type not in ("newline", "indent", "dedent", "operator")]
