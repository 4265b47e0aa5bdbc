"""What of a comprehension runs in the enclosing scope, for expressions.py: its first iterable's use of a cache
(`[k for k, v in cache]`, `zip(new.key_cache, past.key_cache)`), the enclosing scope's names it subscripts, and
the one transformers cache class its element builds (`{k: StaticCache(...) for k in ...}`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hf_cache_lint.engine.interpreter.unpack_targets import count_targets
from hf_cache_lint.engine.interpreter.values import CacheVal, Function, Unknown, Value, list_item
from hf_cache_lint.engine.syntax.comprehensions import comprehension_subscripts, first_target
from hf_cache_lint.engine.syntax.nodes import Node, call_args

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.expressions import Expressions


def comprehended_cache(ex: Expressions, element: Node) -> CacheVal | None:
    """The value of a comprehension's element when it is a call building a transformers cache of a known
    class (`StaticCache(config=..., max_cache_len=n)`), evaluated once in the enclosing scope (the names the
    comprehension binds are unknown there, as an unknown size is); None for anything else, unevaluated."""
    if element.type not in ("atom_expr", "power") or element.children[0].type != "name" \
            or not element.children[0].value.endswith("Cache") or element.children[-1].type != "trailer" \
            or element.children[-1].children[0].value != "(":
        return None
    value = ex.imports.force(ex.eval(element))
    return value if isinstance(value, CacheVal) and value.cls is not None else None


def comprehension_uses(ex: Expressions, body: Node) -> None:
    """`[k for k, v in cache]`: the first iterable of a comprehension runs in the enclosing scope; it is
    evaluated for its use of a cache when evaluating it has no effect (a name or attributes, no call)."""
    kids = getattr(body, "children", None)
    if not kids or kids[-1].type not in ("sync_comp_for", "comp_for"):
        return
    loop = kids[-1].children[-1] if kids[-1].type == "comp_for" else kids[-1]
    if loop.type != "sync_comp_for" or len(loop.children) < 4:
        return
    iterable = loop.children[3]
    item: Value | None = None  # what each item is, where the iterable is a list of one transformers cache
    if _plain_chain(iterable):
        iterated = ex.eval(iterable)
        ex.uses.whole(iterated, "iterate", iterable, count_targets(loop.children[1]))
        item = list_item(iterated)
    elif iterable.type in ("atom_expr", "power") and len(iterable.children) == 2 and \
            iterable.children[0].type == "name" and iterable.children[0].value in _PAIRING and \
            iterable.children[1].type == "trailer" and iterable.children[1].children[0].value == "(":
        # `zip(new.key_cache, past.key_cache)`: the arguments are read in the enclosing scope (a read of a
        # removed member raises there); only names and attribute chains, whose evaluation has no effect.
        for arg in call_args(iterable.children[1]):
            if arg.name is None and not arg.star and _plain_chain(arg.value):
                ex.eval(arg.value)
    _helper_calls(ex, body)
    name = first_target(body) if item is not None else None
    for head, dots, trailer in comprehension_subscripts(body, name):
        # `[[x for x in self.cache[i]] for i in range(n)]`: a name or attributes of the enclosing scope (none
        # the comprehension binds) subscripted inside it, read as the enclosing scope holds them; the first loop's
        # name, over a list of one transformers cache, is that cache (`[past[layer][0] for past in caches]`).
        value = item if item is not None and head.value == name else ex.eval(head)
        for t in dots:
            value = ex.attribute(value, t.children[1].value, head, dots)
        ex.uses.subscript(value, trailer, head, dots)



# Calls a comprehension's first iterable pairs caches' lists with (`zip(a.key_cache, b.key_cache)`).
_PAIRING = frozenset({"zip", "enumerate"})


def _plain_chain(node: Node) -> bool:
    """A name or a chain of attributes and string keys (`cache`, `new.key_cache`, `out["past_key_values"]`, as
    QEfficient's `for key, value in pt_outputs["past_key_values"]`, heldout21): evaluating it has no effect."""
    return node.type == "name" or (node.type in ("atom_expr", "power") and node.children[0].type == "name" and all(
        t.type == "trailer" and (t.children[0].value == "." or (
            t.children[0].value == "[" and len(t.children) == 3 and t.children[1].type == "string"))
        for t in node.children[1:]))


def _helper_calls(ex: Expressions, body: Node) -> None:
    """`tuple((_cat_layer(caches, layer, 0), ...) for layer in range(n))`: a call of one of the module's own functions
    in a comprehension's element runs once, as a loop body's would, with the names the comprehension binds unknown and
    the enclosing scope's as they are (TurboRAG's stacking helper, handed a list of caches). Only a call by plain name
    whose arguments are names or constants (evaluating them has no effect); without an `if` clause (it may be what
    keeps the call from running)."""
    kids = getattr(body, "children", None)
    if not kids or kids[-1].type not in ("sync_comp_for", "comp_for"):
        return
    element = kids[0]
    nodes = list(_walk(element))
    if any(n.type in ("comp_if", "lambdef", "namedexpr_test") for n in _walk(body)):
        return
    bound = {leaf.value for n in _walk(body) if n.type == "sync_comp_for" and len(n.children) > 1
             for leaf in _walk(n.children[1]) if leaf.type == "name"}
    names = ex.s.state.names
    for n in nodes:
        if n.type not in ("atom_expr", "power") or len(n.children) != 2 or n.children[0].type != "name" \
                or n.children[0].value in bound or n.children[1].type != "trailer" \
                or n.children[1].children[0].value != "(":
            continue
        if type(ex.s.lookup(n.children[0].value)) is not Function:
            continue
        args = call_args(n.children[1])
        if any(a.star or a.value.type not in ("name", "number", "string") for a in args):
            continue
        saved = {k: names[k] for k in bound if k in names}
        for k in bound:
            names[k] = Unknown("the comprehension's variable")
        try:
            ex.eval(n)
        finally:
            for k in bound:
                if k in saved:
                    names[k] = saved[k]
                else:
                    names.pop(k, None)


def _walk(node: Node) -> list[Node]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(reversed(getattr(n, "children", [])))
    return out

