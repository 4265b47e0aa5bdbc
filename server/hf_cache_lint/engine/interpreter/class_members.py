"""What a class's own code says, read from the tree: the members it defines itself (`own_members`), whether a
method calls some `__init__`, how a method is decorated, and whether a base is a transformers cache class (also
behind an `except ImportError` fallback); for functions.py's classes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hf_cache_lint.engine.interpreter.values import Maybe, Symbol, Value
from hf_cache_lint.engine.syntax.nodes import code


def _leaves(node: Any) -> Iterator[Any]:
    todo = [node]
    while todo:
        n = todo.pop()
        children = getattr(n, "children", None)
        if children is None:
            yield n
        else:
            todo.extend(reversed(children))


def cache_class(qualname: str) -> bool:
    """A transformers cache class by its qualified name (`transformers.DynamicCache`, `...cache_utils.Cache`)."""
    name = qualname.rpartition(".")[2]
    return qualname.startswith("transformers.") and name.endswith("Cache") and name[:1].isupper()


_TARGET_GROUPS = ("testlist_star_expr", "exprlist", "testlist_comp", "atom")


def own_members(node: Any) -> frozenset[str]:
    """What class `node` defines itself: its methods and class-level names, and every `self.x` / `cls.x` its
    methods assign (`=`, annotated), wherever in them. An augmented assignment alone (`self._seen_tokens += n`)
    defines nothing: it reads the member first, so a class whose only binding of it is `+=` reads its base's (a
    DynamicCache subclass counting `_seen_tokens` without setting it: AttributeError from 4.54.0)."""
    out: set[str] = {fn.name.value for fn in node.iter_funcdefs()}
    stack = list(node.children)
    while stack:
        n = stack.pop()
        if n.type == "expr_stmt":
            kids = n.children
            targets = [kids[i - 1] for i in range(1, len(kids)) if kids[i].type == "operator" and kids[i].value == "="]
            if len(kids) == 2 and kids[1].type == "annassign":
                targets.append(kids[0])
            while any(t.type in _TARGET_GROUPS for t in targets):  # `self.a, self.b = ...`
                targets = [c for t in targets for c in (t.children if t.type in _TARGET_GROUPS else [t])]
            for t in targets:
                if t.type == "name" and n.parent is not None and n.parent.parent is not None \
                        and n.parent.parent.parent is node:  # a class-level name (in the class's suite)
                    out.add(t.value)
                elif t.type in ("power", "atom_expr") and len(t.children) == 2 and t.children[0].type == "name" \
                        and t.children[0].value in ("self", "cls") and t.children[1].children[0].value == ".":
                    out.add(t.children[1].children[1].value)
        stack.extend(getattr(n, "children", ()))
    return frozenset(out)


def _calls_an_init(fn: Any) -> bool:
    """Whether a method's body calls some `__init__` (`super().__init__(...)`, `Base.__init__(self, ...)`)."""
    return any(leaf.type == "name" and leaf.value == "__init__" and leaf.parent is not fn
               for leaf in _leaves(fn.children[-1]))


def _import_fallback(value: Value) -> Value:
    """`try: from transformers import Cache` / `except ImportError: Cache = object`: every supported release has
    the transformers class, so the fallback never runs there; the class is what the base is."""
    if isinstance(value, Maybe):
        real = [v for v, _ in value.options if v != Symbol("builtins.object")]
        if len(real) == 1 and len(value.options) == 2 and isinstance(real[0], Symbol) and cache_class(real[0].qualname):
            return real[0]
    return value


def _takes_keyword(params: list[Any], name: str) -> bool:
    """Whether parameters (parso's) accept `name=`: a parameter of that name, or `**kwargs`."""
    return any(p.name.value == name or p.star_count == 2 for p in params)


def _decorated_as(node: Any) -> str | None:
    """"classmethod" or "staticmethod" for a method with that decorator (as written: `@classmethod`), else None."""
    parent = node.parent
    if parent is None or parent.type != "decorated":
        return None
    written = {code(d).strip().lstrip("@").strip() for d in parent.children[:-1]}
    return next((k for k in ("classmethod", "staticmethod") if k in written), None)


def _is_static(node: Any) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "decorated":
        return any("staticmethod" in code(d) for d in parent.children[:-1])
    return False
