"""The subscripts a comprehension makes of the enclosing scope's names (engine/interpreter/comprehension_scope.py).

`[[x.expand(n, -1) for x in self.cache[i]] for i in range(len(self.cache))]`: the element and the later loops run
once per item, so the interpreter never evaluates them; `self.cache[i]` in there still indexes what `self.cache`
holds in the enclosing scope. Each such subscript is found here as its receiver (a name and `.attribute` trailers,
no call, its first name bound by none of the comprehension's loops or walrus targets) and its `[...]` trailer.
A comprehension with an `if` clause is skipped: the clause may be what keeps a cache out (`if isinstance(...)`)."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.syntax.nodes import Node

_FOR = ("sync_comp_for", "comp_for")


def comprehension_subscripts(body: Node, item: str | None = None) -> Iterator[tuple[Node, list[Node], Node]]:
    """(head name, its `.attribute` trailers, the `[...]` trailer) for each subscript of `body` (a comprehension's
    `testlist_comp` or `argument`, element and loops) on a receiver of the enclosing scope, or on `item`, the name
    the first loop binds, where no other loop binds it (`[past[layer][0] for past in caches]`: each item of what
    the enclosing scope iterates; first_target). The first loop's iterable runs in the enclosing scope and is the
    interpreter's to evaluate: it is left out."""
    nodes = list(_walk(body))
    if any(n.type in ("comp_if", "lambdef", "namedexpr_test") for n in nodes):
        return
    # Every loop's target (`async for` is a `comp_for` around a `sync_comp_for`, which holds the target).
    targets = [leaf.value for n in nodes if n.type == "sync_comp_for" and len(n.children) > 1
               for leaf in _walk(n.children[1]) if leaf.type == "name"]
    bound = set(targets)
    if item is not None and targets.count(item) == 1:
        bound.discard(item)
    first = _first_iterable(body)
    skipped = set() if first is None else {id(n) for n in _walk(first)}
    for n in nodes:
        if n.type not in ("atom_expr", "power") or id(n) in skipped:
            continue
        kids = n.children
        if kids[0].type != "name" or kids[0].value in bound:
            continue
        dots: list[Node] = []
        for t in kids[1:]:
            if t.type != "trailer":
                break
            if t.children[0].value == ".":
                dots.append(t)
                continue
            if t.children[0].value == "[":
                yield kids[0], dots, t
            break


def first_target(body: Node) -> str | None:
    """The one name the comprehension `body`'s first loop binds (`past` in `[... for past in caches]`), if so."""
    kids = getattr(body, "children", None)
    if not kids or kids[-1].type not in _FOR:
        return None
    loop = kids[-1].children[-1] if kids[-1].type == "comp_for" else kids[-1]
    if loop.type != "sync_comp_for" or len(loop.children) < 4 or loop.children[1].type != "name":
        return None
    return str(loop.children[1].value)


def _first_iterable(body: Node) -> Node | None:
    kids = getattr(body, "children", None)
    if not kids or kids[-1].type not in _FOR:
        return None
    loop = kids[-1].children[-1] if kids[-1].type == "comp_for" else kids[-1]
    return loop.children[3] if loop.type == "sync_comp_for" and len(loop.children) >= 4 else None


def _walk(node: Node) -> Iterator[Node]:
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(reversed(getattr(n, "children", [])))


__all__ = ["comprehension_subscripts", "first_target"]
