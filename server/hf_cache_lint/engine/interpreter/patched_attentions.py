"""The `patched_attention` facts (engine/facts/patched_attention.py): a module function patched in as a loaded
transformers model's `self_attn.forward`, or the module's own `nn.Module` attention installed as its `self_attn`
(`layer.self_attn = Fused(layer.self_attn)`), with the number of values it (its `forward`) returns.

Precision: the patched object is `<m>.self_attn` (or a name bound to one) where `m` hangs off a model the module
loads with a transformers class's `from_pretrained` (engine/interpreter/bindings.py `find_models`: a parameter
given one, a loop over its layers); the value is the function itself or `types.MethodType(f, <that object>)`; every
`return` of the function (outside its nested functions) is a tuple display of one length without a starred item."""

from __future__ import annotations

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.patched_attention import PatchedAttention
from hf_cache_lint.engine.interpreter.backbone_generate import flat, tree_nodes
from hf_cache_lint.engine.interpreter.bindings import find_models
from hf_cache_lint.engine.interpreter.hook_names import (
    Names,
    binds_transformers,
    is_trailer,
    module_names,
    prefix,
)
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    code,
    dotted,
    span,
    string_value,
    unparenthesised,
)
from hf_cache_lint.engine.text.text import contains


def patched_attention_facts(module: Node, text: str) -> list[PatchedAttention]:
    if not contains(text, "forward") or not contains(text, "from_pretrained") or \
            (not contains(text, "self_attn") and not (contains(text, "setattr") and contains(text, "Attention"))):
        return []
    if not binds_transformers(module, text):  # no transformers class or module bound: nothing below applies
        return []
    names = module_names(module)
    if not names.classes and not names.modules:
        return []
    nodes = tree_nodes(module)
    assignments = [n for n in nodes if n.type == "expr_stmt"]
    find_models(assignments, [n for n in nodes if n.type in ("for_stmt", "sync_comp_for")],
                [n for n in nodes if n.type == "funcdef"], [n for n in nodes if n.type in ("power", "atom_expr")],
                names)
    if not names.models:
        return []
    attention_names = {flat(n.children[0]) for n in assignments if len(n.children) == 3 and
                       flat(n.children[2]).endswith(".self_attn")}
    facts: list[PatchedAttention] = []
    seen: set[Node] = set()
    own = {n.children[1].value: n for n in nodes if n.type == "classdef"}
    for node in assignments:
        if len(node.children) != 3 or code(node.children[1]).strip() != "=":
            continue
        target, value = node.children[0], unparenthesised(node.children[2])  # a wrapped line's `(f)` is `f`
        installed = _installed_class(target, value, node, names, own)
        if installed is not None:
            if installed not in seen:
                seen.add(installed)
                # As written but for the spaces and `\` continuations allowed around its dots (test_metamorphic).
                facts.extend(installed_fact(installed, dotted(target) or code(target).strip()))
            continue
        if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], ".", "forward"):
            continue
        owner = prefix(target, len(target.children) - 1) or ""
        root = owner.split(".")[0]
        if not (owner.endswith(".self_attn") or owner in attention_names) or not names.model_at(root, node):
            continue
        fn_name = None
        if value.type == "name":
            fn_name = value.value
        elif value.type in ("power", "atom_expr") and (prefix(value, len(value.children) - 1) or "").endswith(
                "MethodType") and is_trailer(value.children[-1], "("):
            args = call_args(value.children[-1])
            if len(args) == 2 and args[0].value.type == "name" and flat(args[1].value) == owner:
                fn_name = args[0].value.value
        fn = names.functions.get(fn_name or "")
        if fn is None:
            continue
        counted = _returned(fn)
        if counted is None:
            continue
        facts.append(PatchedAttention(span=span(target), owner=owner, function=fn_name or "", returned=counted[0],
                                      return_at=counted[1]))
    facts.extend(_walker_patches(nodes, assignments, names))
    return facts


def _installed_class(target: Node, value: Node, node: Node, names: Names, own: dict[str, Node]) -> Node | None:
    """`<layer>.self_attn = Cls(...)` where `<layer>` hangs off a loaded model and `Cls` is a class the module
    defines with no base but `nn.Module` / `torch.nn.Module` / `Module` and its own `forward`: that class node."""
    if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], ".", "self_attn") or \
            target.children[0].type != "name" or not names.model_at(target.children[0].value, node):
        return None
    if value.type not in ("power", "atom_expr") or len(value.children) != 2 or value.children[0].type != "name" or \
            not is_trailer(value.children[1], "("):
        return None
    cls = own.get(value.children[0].value)
    if cls is None:
        return None
    bases = (dotted(cls.children[3]) or "") if len(cls.children) > 4 and code(cls.children[2]) == "(" else ""
    if bases not in ("nn.Module", "torch.nn.Module", "Module"):
        return None  # a transformers base (its own forward's returns are transformers'), or several bases
    return cls


def installed_fact(cls: Node, owner: str) -> list[PatchedAttention]:
    for stmt in cls.children[-1].children:
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "funcdef" and fn.children[1].value == "forward":
            counted = _returned(fn)
            if counted is None:
                return []
            return [PatchedAttention(span=counted[1], owner=owner, function=f"{cls.children[1].value}.forward",
                                     returned=counted[0], return_at=counted[1], installed=True)]
    return []


def _walker_patches(nodes: list[Node], assignments: list[Node], names: Names) -> list[PatchedAttention]:
    """`walker(model, "LlamaAttention", "forward", f)`: a module function `walker(instance, class_name, method,
    new)` whose body binds `setattr(instance, method, types.MethodType(new, instance))` (SelfExtend's
    `modify_method_of_instance`, which recurses over `_modules` and patches the modules whose class has that
    name), called with a loaded model, the name of a class a tabled transformers model module defines (the release
    table), "forward", and a function of the module (or a name bound to `functools.partial(f, ...)` of one). The fact
    sits on the function's first `return`: the patch statement is the walker's, shared by whatever it patches."""
    facts: list[PatchedAttention] = []
    for _call, cls, fn_name in walker_patches(nodes, assignments, names):
        fn = names.functions.get(fn_name)
        counted = _returned(fn) if fn is not None else None
        if counted is None:
            continue
        facts.append(PatchedAttention(span=counted[1], owner=cls,
                                      function=fn_name, returned=counted[0], return_at=counted[1]))
    return facts


def walker_patches(nodes: list[Node], assignments: list[Node], names: Names, any_module: bool = False) \
        -> list[tuple[Node, str, str]]:
    """(the call, the class name, the function's name) of each walker call `_walker_patches` reads (its docstring),
    the models found (`find_models`) in `names`. `any_module`: the walker's `setattr` may patch any name it binds
    (EasyKV's `for module in instance.modules(): if module.__class__.__name__ == target_class_name: setattr(module,
    ...)`), where it tests the class's name against its second parameter."""
    partials: dict[str, str] = {}
    for node in assignments:
        if len(node.children) == 3 and node.children[0].type == "name" and code(node.children[1]).strip() == "=":
            fn = _partial_of(node.children[2])
            if fn is not None:
                partials[node.children[0].value] = fn
    found: list[tuple[Node, str, str]] = []
    for node in nodes:
        if node.type not in ("power", "atom_expr") or len(node.children) != 2 or node.children[0].type != "name" or \
                not is_trailer(node.children[1], "("):
            continue
        walker = names.functions.get(node.children[0].value)
        args = call_args(node.children[1])
        if walker is None or len(args) != 4 or any(a.name or a.star for a in args) or \
                args[0].value.type != "name" or not names.model_at(args[0].value.value, node):
            continue
        cls, method = _string(args[1].value), _string(args[2].value)
        if cls is None or method != "forward" or not cls.endswith("Attention") or not _tabled_class(cls) or \
                not _sets_method(walker, any_module):
            continue
        value = args[3].value
        fn_name = _partial_of(value) or (partials.get(value.value) if value.type == "name" else None) or \
            (value.value if value.type == "name" else None)
        if fn_name is not None and fn_name in names.functions:
            found.append((node, cls, fn_name))
    return found


def _partial_of(value: Node) -> str | None:
    """`f` of `partial(f, ...)` / `functools.partial(f, ...)`, else None."""
    if value.type not in ("power", "atom_expr") or not is_trailer(value.children[-1], "(") or \
            prefix(value, len(value.children) - 1) not in ("partial", "functools.partial"):
        return None
    args = call_args(value.children[-1])
    return args[0].value.value if args and not args[0].name and not args[0].star and args[0].value.type == "name" \
        else None


def _string(node: Node) -> str | None:
    return string_value(node) if node.type == "string" else None


def _tabled_class(name: str) -> bool:
    """A class some tabled transformers model module defines at some release (`LlamaAttention`)."""
    suffix = f".{name}"
    return any(key.startswith("name:transformers.models.") and key.endswith(suffix) for key in releases.table().facts)


def _sets_method(walker: Node, any_module: bool = False) -> bool:
    """The walker's body has `setattr(<1st parameter>, <3rd parameter>, types.MethodType(<4th parameter>, <1st
    parameter>))` (or `MethodType` imported by name)."""
    params = [p.name.value for p in walker.get_params() if p.star_count == 0]
    if len(params) < 4:
        return False
    instance, named, method, new = params[0], params[1], params[2], params[3]
    any_module = any_module and any(n.type == "comparison" and flat(n).endswith(f"__class__.__name__=={named}")
                                    for n in tree_nodes(walker))
    for node in tree_nodes(walker):
        if node.type not in ("power", "atom_expr") or len(node.children) != 2 or \
                flat(node.children[0]) != "setattr" or not is_trailer(node.children[1], "("):
            continue
        args = call_args(node.children[1])
        patched = flat(args[0].value) if len(args) == 3 and (any_module or flat(args[0].value) == instance) else None
        if patched is not None and flat(args[1].value) == method and \
                flat(args[2].value) in (f"MethodType({new},{patched})", f"types.MethodType({new},{patched})"):
            return True
    return False


def _returned(fn: Node) -> tuple[int, Span] | None:
    """(length, first return's span) when every `return` of `fn` (not of a nested function) is a tuple display of
    that one length without a starred item; None otherwise (or without any `return`)."""
    counts: set[int] = set()
    first: Span | None = None
    stack = list(fn.children[-1].children) if hasattr(fn.children[-1], "children") else []
    while stack:
        node = stack.pop()
        if node.type in ("funcdef", "lambdef", "classdef"):
            continue
        if node.type == "return_stmt":
            if len(node.children) < 2:
                return None
            value = node.children[1]
            if value.type == "atom" and code(value).startswith("(") and len(value.children) == 3:
                value = value.children[1]
            if value.type not in ("testlist_star_expr", "testlist", "testlist_comp"):
                return None
            items = [c for c in value.children if not (c.type == "operator" and c.value == ",")]
            if any(c.type == "star_expr" for c in items) or any(c.type == "comp_for" or c.type == "sync_comp_for"
                                                               for c in items):
                return None
            counts.add(len(items))
            if first is None or span(node).start < first.start:
                first = span(node)
            continue
        stack.extend(getattr(node, "children", ()))
    if len(counts) != 1 or first is None:
        return None
    return counts.pop(), first
