"""What a module's own code says is not transformers': the functions it defines, the names it binds only to its
own classes (or another project's) and to what those build, and the names it stores onto a transformers module.
engine/interpreter/removed_api.py asks it before reporting a removed cache API on a receiver (issue 29: a project's cache class
that defines `to_legacy_cache` itself, a compat shim `transformers.SinkCache = None`, are no transformers API)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from hf_cache_lint.engine.syntax.nodes import Node, imported_from


@dataclass(frozen=True)
class OwnNames:
    functions: frozenset[str]  # `def name(...)` anywhere in the module
    foreign: frozenset[str]  # bound only to own or non-transformers classes, or to what calling them returns
    shimmed: frozenset[str]  # `X` of every `<transformers module>.X = ...`


def own_names(module: Node, modules: Collection[str]) -> OwnNames:
    """One walk of the module for all three (`modules`: the names bound to the transformers module)."""
    functions: set[str] = set()
    shimmed: set[str] = set()
    own: set[str] = set()
    theirs: set[str] = set()
    calls: list[tuple[str, str]] = []  # (bound name, the called name)
    stack = [module]
    while stack:
        node = stack.pop()
        t = node.type
        if t == "funcdef":
            functions.add(node.children[1].value)
        elif t == "classdef":
            own.add(node.children[1].value)
        elif t in ("import_from", "import_name"):
            for bound in node.get_defined_names():
                root = imported_from(node) if t == "import_from" else node.get_path_for_name(bound)[0].value
                ours = root.split(".")[0] == "transformers" and (t == "import_name" or node.level == 0)
                (theirs if ours else own).add(bound.value)
        elif t == "expr_stmt":
            shimmed.update(_stored_on(node, modules))
            if len(node.children) == 3 and node.children[0].type == "name":
                value = node.children[2]
                if value.type in ("power", "atom_expr") and value.children[0].type == "name" and \
                        len(value.children) == 2 and value.children[1].type == "trailer" and \
                        value.children[1].children[0].value == "(":
                    calls.append((node.children[0].value, value.children[0].value))
                else:
                    theirs.add(node.children[0].value)  # bound to something else too: not only foreign
        elif t == "param":
            theirs.add(node.name.value)  # a parameter may hold anything a caller passes
        stack.extend(getattr(node, "children", ()))
    built = {name for name, called in calls if called in own}
    built -= {name for name, called in calls if called not in own}
    return OwnNames(frozenset(functions), frozenset((own | built) - theirs), frozenset(shimmed))


def _stored_on(statement: Node, modules: Collection[str]) -> set[str]:
    """`X` of each `<module>.X` target of an assignment statement (`a = b = value`: every target but the value)."""
    out = set()
    for target in statement.children[:-1:2]:
        kids = getattr(target, "children", None)
        if target.type in ("power", "atom_expr") and kids is not None and len(kids) == 2 and \
                kids[0].type == "name" and kids[0].value in modules and kids[1].type == "trailer" and \
                kids[1].children[0].value == ".":
            out.add(kids[1].children[1].value)
    return out
