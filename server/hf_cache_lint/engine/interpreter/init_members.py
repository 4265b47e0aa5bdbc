"""What a project class's `__init__` sets on `self`, read from the syntax tree: the `self.x = ...` targets of the
first `__init__` on the way up the module's own classes, and of the methods it calls as `self.m(...)` (one level).

A cache subclass that counts on top of the counter its 4.4x base set in `__init__` (`self._seen_tokens += n` in
`update`, set again only in another method: KVzip's EvictCache) reads the base's counter first
(engine/interpreter/cache_uses.py `_unset_counter`); one whose `__init__` sets it does not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hf_cache_lint.engine.interpreter.values import ClassDef, Value


def init_sets(cls: ClassDef, name: str, lookup: Callable[[str], Value | None]) -> bool:
    """Whether the `__init__` instances of `cls` run (the class's, else its first project base's: `names` are the
    module's names, by `lookup`) assigns `self.<name>`, itself or in a `self.<method>(...)` it calls."""
    seen: set[int] = set()
    current: ClassDef | None = cls
    while current is not None and current.node is not None and id(current.node) not in seen:
        seen.add(id(current.node))
        methods = {fn.name.value: fn for fn in current.node.iter_funcdefs()}
        init = methods.get("__init__")
        if init is not None:
            called = [methods[m] for m in _self_calls(init) if m in methods]
            return any(name in _self_targets(fn) for fn in (init, *called))
        current = _project_base(current, lookup)
    return False


def _project_base(cls: ClassDef, lookup: Callable[[str], Value | None]) -> ClassDef | None:
    arglist = cls.node.get_super_arglist()
    bases = [] if arglist is None else arglist.children if arglist.type == "arglist" else [arglist]
    for base in bases:
        if base.type == "name":
            value = lookup(base.value)
            if isinstance(value, ClassDef) and value.node is not None:
                return value
    return None


def _walk(node: Any) -> list[Any]:
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(getattr(n, "children", ()))
    return out


def _self_attribute(node: Any) -> str | None:
    """`self.x` (a name and one `.x` trailer): x."""
    kids: list[Any] = getattr(node, "children", [])
    if node.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" \
            and kids[0].value == "self" and kids[1].type == "trailer" and kids[1].children[0].value == ".":
        return str(kids[1].children[1].value)
    return None


def _self_targets(fn: Any) -> set[str]:
    out: set[str] = set()
    for n in _walk(fn.children[-1]):
        if n.type == "expr_stmt":
            kids = n.children
            targets = [kids[i - 1] for i in range(1, len(kids)) if kids[i].type == "operator" and kids[i].value == "="]
            if len(kids) == 2 and kids[1].type == "annassign":
                targets.append(kids[0])
            for t in targets:
                for leaf in (t, *getattr(t, "children", ())):
                    got = _self_attribute(leaf)
                    if got is not None:
                        out.add(got)
    return out


def _self_calls(fn: Any) -> list[str]:
    """The methods `fn` calls as `self.m(...)`."""
    out: list[str] = []
    for n in _walk(fn.children[-1]):
        kids: list[Any] = getattr(n, "children", [])
        if n.type in ("power", "atom_expr") and len(kids) >= 3 and kids[0].type == "name" and kids[0].value == "self" \
                and kids[1].type == "trailer" and kids[1].children[0].value == "." \
                and kids[2].type == "trailer" and kids[2].children[0].value == "(":
            out.append(str(kids[1].children[1].value))
    return out


def defines_method(cls: ClassDef, name: str, lookup: Callable[[str], Value | None]) -> bool:
    """Whether `cls` or one of the module's classes it derives from (first base on the way) defines `def <name>`;
    an attribute the code sets (`self._cache = ...`) is not one."""
    seen: set[int] = set()
    current: ClassDef | None = cls
    while current is not None and current.node is not None and id(current.node) not in seen:
        seen.add(id(current.node))
        if any(fn.name.value == name for fn in current.node.iter_funcdefs()):
            return True
        current = _project_base(current, lookup)
    return False


def sets_attribute(cls: ClassDef, name: str, lookup: Callable[[str], Value | None]) -> bool:
    """Whether a method of `cls` or of the module's classes it derives from (first base on the way) assigns
    `self.<name>`."""
    seen: set[int] = set()
    current: ClassDef | None = cls
    while current is not None and current.node is not None and id(current.node) not in seen:
        seen.add(id(current.node))
        if any(name in _self_targets(fn) for fn in current.node.iter_funcdefs()):
            return True
        current = _project_base(current, lookup)
    return False


def instance_only(cls: ClassDef, name: str, lookup: Callable[[str], Value | None]) -> bool:
    """Whether the project's classes on the way (`cls`, then its first module base) have `name` only as what a
    method assigns on `self`: no `def <name>` (a property, a method) and no class-level binding of it. Such a
    member is the base class's until that assignment runs, and the assignment itself goes through the base's
    descriptor (a read-only property raises)."""
    if not sets_attribute(cls, name, lookup):
        return False
    seen: set[int] = set()
    current: ClassDef | None = cls
    while current is not None and current.node is not None and id(current.node) not in seen:
        seen.add(id(current.node))
        if any(fn.name.value == name for fn in current.node.iter_funcdefs()):
            return False
        suite = current.node.children[-1]
        for stmt in getattr(suite, "children", ()):
            line = stmt.children[0] if stmt.type == "simple_stmt" else stmt
            if line.type == "expr_stmt" and any(
                    leaf.type == "name" and leaf.value == name for leaf in (line.children[0],)):
                return False
        current = _project_base(current, lookup)
    return True
