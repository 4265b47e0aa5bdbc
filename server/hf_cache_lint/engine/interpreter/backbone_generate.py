"""The `backbone_generate` facts (engine/facts/backbone_generate.py): `generate` (or another `GenerationMixin`
method, `MIXIN_MEMBERS`: the `_get_logits_processor` a remote-code `stream_generate` calls) called on a model class
of the module whose only transformers bases are backbones (`GPT2PreTrainedModel`, `LlamaModel`, `PreTrainedModel`: no
language-model head, no `GenerationMixin`), which has none of them of its own from 4.52.1.

Precision: the class derives only from transformers model classes (and the module's own such classes); neither it
nor a base of the module defines `generate` or `__getattr__` (nor the member called); and the call's receiver is, by
what the code says,
an instance of it: `self.generate(...)` in its own methods (a class the module builds and no class of it
derives from: `self` may be a subclass's), or `x.generate(...)` where every binding of `x` (a
name or a `self.x` attribute, by its text) in the module is `Cls(...)` or `Cls.from_pretrained(...)`
(followed by `.eval()`, `.to(...)`: nn.Module's methods that return the module)."""

from __future__ import annotations

import re

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.backbone_generate import MIXIN_MEMBERS, BackboneGenerate
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
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code, dotted, span


def backbone_generate_facts(module: Node, text: str) -> list[BackboneGenerate]:
    if "transformers" not in text or "class" not in text:
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
            member = _member_called(kids[i], kids[i + 1])
            if member is None:
                continue
            receiver = "".join(flat(k) for k in kids[:i])
            cls = self_class(node) if receiver == "self" else bound.get(receiver) or \
                _held(receiver, node, nodes, own, set(classes))
            if cls is None or cls not in classes or (receiver == "self" and (
                    cls in subclassed or cls not in bound.values())):
                continue  # `self` may be a subclass's instance; and a class never built here may be built with one
            if member != "generate" and _chain_defines(classes[cls], member, own):
                continue  # the class (or a base of the module) brings its own
            base = _backbone_base(classes[cls], names, own)
            assert base is not None
            facts.append(BackboneGenerate(span=Span(span(kids[0]).start, span(kids[i]).end), receiver=receiver,
                                          cls=cls, base=base, class_span=span(classes[cls].children[1]),
                                          member=member))
    return facts


def _held(receiver: str, node: Node, nodes: list[Node], own: dict[str, Node], classes: set[str]) -> str | None:
    """The class of `self.<holder>.<attr>` in a method of a module class (a chat helper: `self.model.llm`) whose
    `__init__` stores one of its parameters as `self.<holder>`, where every construction of that class in the module
    passes there an instance of one module class (`Conversation(biomedgpt)`, `biomedgpt = BioMedGPTV()`) whose
    `self.<attr>` is built of one of `classes` (`self.llm = LlamaForCausalLM(config)`)."""
    parts = receiver.split(".")
    outer = self_class(node) if len(parts) == 3 and parts[0] == "self" else None
    if outer is None or outer not in own:
        return None
    stored = _stored_parameter(own[outer], parts[1])
    if stored is None:
        return None
    index, parameter = stored
    built = instances(nodes, set(own))
    held: set[str | None] = set()
    for call in nodes:
        kids = call.children
        if call.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" and \
                kids[0].value == outer and is_trailer(kids[1], "("):
            args = call_args(kids[1])
            if any(a.star for a in args):
                return None
            named = [a for a in args if a.name == parameter]
            positional = [a for a in args if a.name is None]
            arg = named[0] if named else positional[index] if index < len(positional) else None
            held.add(_instance_of(arg.value, built, own) if arg is not None else None)
    inner = next(iter(held)) if len(held) == 1 else None
    if inner is None:
        return None
    cls = instances(tree_nodes(own[inner]), classes).get(f"self.{parts[2]}")
    return cls if cls is not None and f"self.{parts[2]}" not in _rebound_outside(nodes, own[inner], parts[2]) \
        else None


def _instance_of(value: Node, built: dict[str, str], own: dict[str, Node]) -> str | None:
    """The module class `value` is an instance of: a name every binding of which builds it, or `Cls(...)`."""
    kids: list[Node] = getattr(value, "children", [])
    if value.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" and \
            kids[0].value in own and is_trailer(kids[1], "("):
        return str(kids[0].value)
    return built.get(flat(value))


def _rebound_outside(nodes: list[Node], cls: Node, attr: str) -> set[str]:
    """`{"self.<attr>"}` when some statement outside `cls` binds `<anything>.<attr>` (the holder's attribute may be
    replaced from outside), else the empty set."""
    inside = {id(n) for n in tree_nodes(cls)}
    for node in nodes:
        if node.type == "expr_stmt" and id(node) not in inside and flat(node.children[0]).endswith(f".{attr}") and \
                len(node.children) == 3 and code(node.children[1]).strip() == "=":
            return {f"self.{attr}"}
    return set()


def _stored_parameter(cls: Node, holder: str) -> tuple[int, str] | None:
    """(position after `self`, name) of the `__init__` parameter that `cls` stores as `self.<holder>`, when that is
    the class's only binding of `self.<holder>`."""
    init = next((s for s in suite(cls.children[-1]) if s.type == "funcdef" and s.children[1].value == "__init__"),
                None)
    if init is None:
        return None
    parameters = [p.name.value for p in init.get_params() if p.star_count == 0][1:]  # but `self`
    stored: list[str] = []
    for node in tree_nodes(cls):
        if node.type == "expr_stmt" and len(node.children) == 3 and flat(node.children[0]) == f"self.{holder}":
            stored.append(flat(node.children[2]) if code(node.children[1]).strip() == "=" else "")
    if len(stored) != 1 or stored[0] not in parameters:
        return None
    return parameters.index(stored[0]), stored[0]


def _member_called(dot: Node, call: Node) -> str | None:
    """The `GenerationMixin` member `.name(` calls, when `dot` is `.name` of one and `call` its `(...)`."""
    if not is_trailer(call, "(") or dot.type != "trailer" or len(dot.children) != 2:
        return None
    name = getattr(dot.children[1], "value", None)
    return name if isinstance(name, str) and name in MIXIN_MEMBERS and is_trailer(dot, ".", name) else None


def _chain_defines(cls: Node, name: str, own: dict[str, Node]) -> bool:
    """`cls` or one of the module's classes it derives from (by the base's name as written) defines `name`."""
    seen: set[int] = set()
    stack = [cls]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if defines(node, (name,)):
            return True
        if len(node.children) >= 7:
            stack.extend(own[flat(b)] for b in base_items(node.children[3]) if flat(b) in own)
    return False


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
