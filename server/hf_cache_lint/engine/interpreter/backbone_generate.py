"""The `backbone_generate` facts (engine/facts/backbone_generate.py): `generate` called on a model class of the
module whose only transformers bases are backbones (`GPT2PreTrainedModel`, `LlamaModel`, `PreTrainedModel`: no
language-model head, no `GenerationMixin`), which has no `generate` of its own from 4.52.1.

Precision: the class derives only from transformers model classes (and the module's own such classes); neither it
nor a base of the module defines `generate` or `__getattr__`; and the call's receiver is, by what the code says,
an instance of it: `self.generate(...)` in its own methods (a class the module builds and no class of it
derives from: `self` may be a subclass's), or `x.generate(...)` where every binding of `x` (a
name or a `self.x` attribute, by its text) in the module is `Cls(...)` or `Cls.from_pretrained(...)`
(followed by `.eval()`, `.to(...)`: nn.Module's methods that return the module)."""

from __future__ import annotations

import re

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.backbone_generate import BackboneGenerate
from hf_cache_lint.engine.interpreter.bindings import without_self_returning
from hf_cache_lint.engine.interpreter.hook_classes import generates
from hf_cache_lint.engine.interpreter.hook_names import (
    Names,
    binds_transformers,
    is_trailer,
    module_names,
    reference_role,
)
from hf_cache_lint.engine.interpreter.hook_trees import base_items, suite
from hf_cache_lint.engine.syntax.nodes import Node, code, dotted, span


def backbone_generate_facts(module: Node, text: str) -> list[BackboneGenerate]:
    if "generate" not in text or "transformers" not in text or "class" not in text:
        return []
    if not binds_transformers(module, text):  # no transformers class or module bound: nothing below applies
        return []
    names = module_names(module)
    if not names.classes and not names.modules:
        return []
    classes: dict[str, Node] = {}  # the module's classes built on a backbone only
    own: dict[str, Node] = {}
    nodes = tree_nodes(module)
    for node in nodes:
        if node.type == "classdef":
            own[node.children[1].value] = node
    for name, node in own.items():
        base = _backbone_base(node, names, own)
        if base is not None:
            classes[name] = node
    if not classes:
        return []
    bound = instances(nodes, set(classes))
    subclassed = subclassed_here(own)
    facts: list[BackboneGenerate] = []
    for node in nodes:
        if node.type not in ("power", "atom_expr"):
            continue
        kids = node.children
        for i in range(1, len(kids) - 1):
            if not (is_trailer(kids[i], ".", "generate") and is_trailer(kids[i + 1], "(")):
                continue
            receiver = "".join(flat(k) for k in kids[:i])
            cls = self_class(node) if receiver == "self" else bound.get(receiver)
            if cls is None or cls not in classes or (receiver == "self" and (
                    cls in subclassed or cls not in bound.values())):
                continue  # `self` may be a subclass's instance; and a class never built here may be built with one
            base = _backbone_base(classes[cls], names, own)
            assert base is not None
            facts.append(BackboneGenerate(span=Span(span(kids[0]).start, span(kids[i]).end), receiver=receiver,
                                          cls=cls, base=base, class_span=span(classes[cls].children[1])))
    return facts


def flat(node: Node) -> str:
    """The node's source without any whitespace or line continuation (`model . generate`, `model.\\` newline
    `generate` are `model.generate`)."""
    return "".join(re.sub(r"\\\r?\n|\\\r", "", code(node)).split())


def tree_nodes(module: Node) -> list[Node]:
    """Every node (not leaf) of the tree, pre-order, left to right."""
    nodes: list[Node] = []
    stack = [module]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue
        nodes.append(node)
        stack.extend(reversed(kids))
    return nodes


def defines(cls: Node, names: tuple[str, ...]) -> bool:
    """The class body defines one of `names` (a method or an assignment)."""
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef" and fn.children[1].value in names:
            return True
        if fn.type == "expr_stmt" and flat(fn.children[0]) in names:
            return True
    return False


def _backbone_base(cls: Node, names: Names, own: dict[str, Node]) -> str | None:
    """The transformers backbone `cls` is built on (as written), when every base is a transformers model class
    without `generate` (or the module's own such class) and no class on the way defines `generate`."""
    if len(cls.children) < 7 or defines(cls, ("generate", "__getattr__")):
        return None
    if generates(cls, names, {}) != "":
        return None  # a generation head or GenerationMixin among the bases
    bases = cls.children[3]
    items = base_items(bases)
    found: str | None = None
    for base in items:
        path = dotted(base) if base.type != "argument" else None
        if path is None:
            return None
        if path in own and own[path] is not cls:
            inner = _backbone_base(own[path], names, own)
            if inner is None:
                return None
            found = found or inner
        elif reference_role(path, names) == "model":
            found = found or path
        else:
            return None  # a project's own mixin, `nn.Module`, ...: it may bring a `generate`
    return found


def subclassed_here(own: dict[str, Node]) -> set[str]:
    """The module's classes another class of the module derives from (by the base's name as written)."""
    out: set[str] = set()
    for node in own.values():
        if len(node.children) >= 7:
            bases = node.children[3]
            items = base_items(bases)
            out.update(flat(b) for b in items if flat(b) in own)
    return out


def self_class(node: Node) -> str | None:
    """The class whose method `node` stands in (directly: a nested function's `self` is not known)."""
    fn: Node | None = node.parent
    while fn is not None and fn.type != "funcdef":
        fn = fn.parent
    owner = fn.parent if fn is not None else None
    while owner is not None and owner.type in ("suite", "decorated"):
        owner = owner.parent
    return str(owner.children[1].value) if owner is not None and owner.type == "classdef" else None


def instances(nodes: list[Node], classes: set[str]) -> dict[str, str]:
    """receiver text -> class, where every binding of that text in the module builds the same one of `classes`."""
    seen: dict[str, set[str | None]] = {}
    for node in nodes:
        if node.type != "expr_stmt" or len(node.children) != 3 or code(node.children[1]).strip() != "=":
            continue
        target = flat(node.children[0])
        value = node.children[2]
        cls: str | None = None
        if value.type in ("power", "atom_expr") and value.children[0].type == "name":
            first = value.children[0].value
            # `Cls(...).eval()`, `.to(device)`: nn.Module's methods that return the module itself
            rest = without_self_returning(value)[1:]
            if first in classes and (
                    (len(rest) == 1 and is_trailer(rest[0], "(")) or
                    (len(rest) == 2 and is_trailer(rest[0], ".", "from_pretrained") and is_trailer(rest[1], "("))):
                cls = first
        seen.setdefault(target, set()).add(cls)
    out: dict[str, str] = {}
    for target, built in seen.items():
        only = next(iter(built))
        if len(built) == 1 and only is not None:
            out[target] = only
    return out
