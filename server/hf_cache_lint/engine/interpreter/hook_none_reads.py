"""A hook's first use of its cache parameter where that use raises on None (for hook_signatures): where a release
passes the cache under another name the parameter keeps its default, None, and a body that dereferences it before
any test of it raises there (the oracle: `past_length = past_key_values.get_seq_length()` as a
`prepare_inputs_for_generation` override's first statement runs on 4.57.6 and raises `AttributeError: 'NoneType'
object has no attribute 'get_seq_length'` on 5.24.0)."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.interpreter.hook_names import is_trailer
from hf_cache_lint.engine.interpreter.hook_trees import walk
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, span_between

# The parts of a compound statement that run whenever the statement does: an `if`'s first test, a `while`'s test, a
# `for`'s iterable, a `try`'s body, a `with`'s items and body.
_ALWAYS = {"if_stmt": (1,), "while_stmt": (1,), "for_stmt": (3,), "try_stmt": (2,)}


def none_read(body: Node, name: str) -> tuple[Span, str, str] | None:
    """The body's first use of the parameter `name` where that use raises if `name` is None: `name.attr`,
    `name[...]` or `len(name)` (the span through the first trailer, its text, and the error None raises there),
    running whenever the body does (no branch, loop body, handler, ternary arm or later `and`/`or` operand around
    it), or in the body of an `if not isinstance(name, ...):` that is the body's first test of it (None is no
    instance of anything tabled: PyramidKV's `if not isinstance(past_key_values, tuple): len(past_key_values.
    key_cache)`). None where the first use is anything else: a test (`is not None`, truth), an assignment, handing
    it on."""
    negated: list[Node] = []  # the `if not isinstance(name, ...):` statements the walk has gone into
    for node in walk(body):
        if node.type in ("funcdef", "lambdef", "classdef"):
            return None  # a nested scope first: what it runs, and when, is not this body's order
        if node.type != "name" or node.value != name:
            continue
        parent = node.parent
        if parent is None:
            return None
        if (parent.type == "trailer" and parent.children[0].type == "operator" and parent.children[0].value == ".") \
                or (parent.type == "argument" and parent.children[0] is node and len(parent.children) == 3):
            continue  # `self.past_key_values`, `f(past_key_values=...)`: another name, a keyword
        if _negated_isinstance_test(node, name):
            stmt = parent
            while stmt is not None and stmt.type != "if_stmt":
                stmt = stmt.parent
            if stmt is not None and not negated:
                negated.append(stmt)
                continue
            return None
        error = _raises_on_none(node)
        if error is None or not _runs(node, body, negated):
            return None
        if parent.type in ("power", "atom_expr"):
            return span_between(node, parent.children[1]), "".join(code(k) for k in parent.children[:2]).strip(), \
                error
        call = parent.parent  # `len(name)`: the trailer's call
        assert call is not None
        return span_between(call.children[0], parent), code(call).strip(), error
    return None


def _raises_on_none(leaf: Node) -> str | None:
    parent = leaf.parent
    assert parent is not None
    if parent.type in ("power", "atom_expr") and parent.children[0] is leaf and len(parent.children) > 1:
        trailer = parent.children[1]
        if is_trailer(trailer, "."):
            return f"AttributeError: 'NoneType' object has no attribute '{trailer.children[1].value}'"
        if is_trailer(trailer, "["):
            return "TypeError: 'NoneType' object is not subscriptable"
        return None
    if parent.type == "trailer" and is_trailer(parent, "(") and parent.parent is not None:
        call = parent.parent
        if call.type in ("power", "atom_expr") and len(call.children) == 2 and call.children[0].type == "name" and \
                call.children[0].value == "len" and call.children[1] is parent:
            args = call_args(parent)
            if len(args) == 1 and args[0].value is leaf and not args[0].star and args[0].name is None:
                return "TypeError: object of type 'NoneType' has no len()"
    return None


def _negated_isinstance_test(leaf: Node, name: str) -> bool:
    """`leaf` is the first argument of `isinstance(name, ...)` in `not isinstance(name, ...)`, the whole test of
    an `if` (not an `elif`)."""
    trailer = leaf.parent
    while trailer is not None and trailer.type in ("argument", "arglist"):
        trailer = trailer.parent
    if trailer is None or not is_trailer(trailer, "(") or trailer.parent is None:
        return False
    call = trailer.parent
    if call.type not in ("power", "atom_expr") or len(call.children) != 2 or call.children[0].type != "name" or \
            call.children[0].value != "isinstance":
        return False
    args = call_args(trailer)
    if len(args) != 2 or args[0].value is not leaf:
        return False
    test = call.parent
    if test is None or test.type != "not_test":
        return False
    stmt = test.parent
    return stmt is not None and stmt.type == "if_stmt" and stmt.children[1] is test and name == leaf.value


def _runs(node: Node, body: Node, negated: list[Node]) -> bool:
    """`node` runs whenever `body` does, or whenever the body of one of the `negated` ifs' first branch does."""
    child, parent = node, node.parent
    while parent is not None and parent is not body:
        t = parent.type
        if t == "if_stmt" and parent in negated:
            if parent.children.index(child) != 3:
                return False  # an `elif`/`else` branch of it: not where None goes
        elif t in _ALWAYS:
            if parent.children.index(child) not in _ALWAYS[t]:
                return False
        elif t in ("funcdef", "lambdef", "classdef", "sync_comp_for", "comp_for", "except_clause"):
            return False
        elif t == "test" and parent.children.index(child) != 2:
            return False  # `a if c else b`: only the condition always runs
        elif t in ("and_test", "or_test") and parent.children.index(child) != 0:
            return False
        child, parent = parent, parent.parent
    return parent is body
