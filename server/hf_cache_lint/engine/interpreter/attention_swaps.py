"""The module's own attention class swapped in for transformers' by a walk over a model's submodules (for hooks.py):
`for name, child in module.named_children(): if isinstance(child, LlamaAttention): setattr(module, name,
MyAttention(...))` (quantized-training's `swap_module`, recursive; also over `named_modules()`, and with the instance
first bound to a name, `new_attn = MyAttention(...); setattr(module, name, new_attn)`). The `isinstance` test of a
transformers attention class says what the swapped-in module replaces: transformers' decoder layer then calls it
with its own keywords, wherever the walk is started from."""

from __future__ import annotations

from hf_cache_lint.engine.interpreter.hook_names import Names, is_trailer
from hf_cache_lint.engine.interpreter.hook_registrations import isinstance_role
from hf_cache_lint.engine.interpreter.hook_trees import suite
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code

_WALKS = ("named_children", "named_modules")


def swapped_in(stmt: Node) -> tuple[Node, str, str] | None:
    """(the value's class name node, the class name, the tested name) of `setattr(<parent>, <name>, <value>)` where
    `<name>` is the first target of an enclosing `for <name>, <child> in <x>.named_children()` (or
    `named_modules()`) and `<value>` is a call of a bare name or a name bound to one in the same block before it;
    None otherwise. Whether `<child>` is tested against a transformers attention class is `swaps_attention`'s."""
    kids = stmt.children
    if stmt.type not in ("power", "atom_expr") or len(kids) != 2 or kids[0].type != "name" or \
            kids[0].value != "setattr" or not is_trailer(kids[1], "("):
        return None
    args = call_args(kids[1])
    if len(args) != 3 or any(a.name or a.star for a in args) or args[1].value.type != "name":
        return None
    loop = _walk_loop(stmt, args[1].value.value)
    if loop is None:
        return None
    value = _call_of(args[2].value, stmt)
    if value is None:
        return None
    return value, str(value.value), loop


def swaps_attention(stmt: Node, child: str, names: Names) -> bool:
    """`stmt` is under `if isinstance(<child>, C)` where C (or every class of a tuple) is a transformers attention
    class."""
    return isinstance_role(stmt, child, names) == "attention"


def _walk_loop(stmt: Node, name: str) -> str | None:
    """The child's name of the enclosing `for <name>, <child> in <x>.named_children():` (`named_modules()`)."""
    parent = stmt.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "for_stmt":
            target, iterable = parent.children[1], parent.children[3]
            names = [c for c in target.children if c.type != "operator"] if target.type == "exprlist" else []
            if len(names) == 2 and all(n.type == "name" for n in names) and names[0].value == name and \
                    iterable.type in ("power", "atom_expr") and len(iterable.children) >= 3 and \
                    is_trailer(iterable.children[-2], ".") and iterable.children[-2].children[1].value in _WALKS and \
                    is_trailer(iterable.children[-1], "("):
                return str(names[1].value)
        parent = parent.parent
    return None


def _call_of(value: Node, stmt: Node) -> Node | None:
    """The class-name node of `Cls(...)`, or of the last `<value> = Cls(...)` before `stmt` in its block."""
    if value.type in ("power", "atom_expr") and len(value.children) == 2 and value.children[0].type == "name" and \
            is_trailer(value.children[1], "("):
        return value.children[0]
    if value.type != "name":
        return None
    line = stmt
    while line.parent is not None and line.type != "simple_stmt":
        line = line.parent
    block = line.parent
    if block is None:
        return None
    found: Node | None = None
    for s in suite(block):
        if s is line:
            break
        if s.type != "simple_stmt":
            continue
        expr = s.children[0]
        if expr.type == "expr_stmt" and len(expr.children) == 3 and code(expr.children[1]).strip() == "=" and \
                expr.children[0].type == "name" and expr.children[0].value == value.value:
            bound = expr.children[2]
            found = bound.children[0] if bound.type in ("power", "atom_expr") and len(bound.children) == 2 and \
                bound.children[0].type == "name" and is_trailer(bound.children[1], "(") else None
    return found
