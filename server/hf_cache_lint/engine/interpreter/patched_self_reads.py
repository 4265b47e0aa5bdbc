"""The `patched_self_read` facts (engine/facts/patched_self_read.py): a module function patched in as the `forward`
of a transformers attention or decoder-layer class, with the names it reads off `self`.

The patches read: `<class>.forward = f` (or `types.MethodType(f, <class>)`, `(f)`), `setattr(<class>, "forward",
f)`, where `<class>` is written off a transformers module the module imports (`modeling_llama.LlamaAttention`,
`transformers.models.llama.modeling_llama.LlamaAttention`) or imported from transformers by name; `<module>.forward
= types.MethodType(f, <module>)` under an `if` testing that module's class (`isinstance(module, LlamaAttention)`,
`module.__class__.__name__ == "LlamaAttention"`: streaming-llm's pos-shift patch); and the walkers
engine/interpreter/patched_attentions.py reads (`modify_method_of_instance(model, "LlamaAttention", "forward", f)`).
The class must be one the release table's `attr:` facts cover, defined by one tabled module.

Precision: a name counts only where the function reads `self.<name>` with `self` its first parameter, outside its
nested functions, and nothing in the module sets it (`<anything>.<name> = ...`, so a project that puts
`num_heads` back on each module is not flagged) or names it in a string (`hasattr(self, "num_heads")`,
`setattr(m, "num_heads", ...)`, `getattr`)."""

from __future__ import annotations

import re
from functools import cache

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.patched_self_read import PatchedSelfRead, might_patch
from hf_cache_lint.engine.interpreter.backbone_generate import flat, tree_nodes
from hf_cache_lint.engine.interpreter.bindings import find_models
from hf_cache_lint.engine.interpreter.hook_names import (
    Names,
    binds_transformers,
    is_trailer,
    module_names,
    prefix,
)
from hf_cache_lint.engine.interpreter.patched_attentions import walker_patches
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    code,
    span,
    span_between,
    string_value,
    unparenthesised,
)

_LAYER = re.compile(r"\w+(Attention\w*|DecoderLayer|Block)")


def patched_self_read_facts(module: Node, text: str, guards: VersionGuards | None = None) -> list[PatchedSelfRead]:
    """The facts; with the target's `guards`, not a patch (nor a read) in a branch a transformers-version test
    rules out at the target (`if version.parse(transformers.__version__) < version.parse("4.48"): ...`)."""
    if not might_patch(text):  # the kind's own text test: its words and a patch's form
        return []
    if not binds_transformers(module, text):
        return []
    names = module_names(module)
    nodes = tree_nodes(module)
    assignments = [n for n in nodes if n.type == "expr_stmt"]
    patches: list[tuple[Node, str, str]] = []  # (patch statement or call, class name, function name)
    for node in assignments:
        if len(node.children) != 3 or code(node.children[1]).strip() != "=":
            continue
        target, value = node.children[0], unparenthesised(node.children[2])
        if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], ".", "forward"):
            continue
        owner = prefix(target, len(target.children) - 1)
        cls = _class_of(owner, names)
        fn = _function_of(value)
        if cls is None and fn is not None and _bound_onto(value, target):
            cls = _tested_class(node, names)  # `if isinstance(module, LlamaAttention): module.forward = ...`
        if cls is not None and fn is not None:
            patches.append((node, cls, fn))
    for node in nodes:  # `setattr(<class>, "forward", f)`
        if node.type in ("power", "atom_expr") and len(node.children) == 2 and \
                code(node.children[0]).strip() == "setattr" and is_trailer(node.children[1], "("):
            args = call_args(node.children[1])
            if len(args) == 3 and not any(a.name or a.star for a in args) and args[1].value.type == "string" and \
                    string_value(args[1].value) == "forward":
                cls = _class_of(flat(args[0].value), names)
                fn = _function_of(args[2].value)
                if cls is not None and fn is not None:
                    patches.append((node, cls, fn))
    if "Attention" in text and names.functions:
        find_models(assignments, [n for n in nodes if n.type in ("for_stmt", "sync_comp_for")],
                    [n for n in nodes if n.type == "funcdef"], [n for n in nodes if n.type in ("power", "atom_expr")],
                    names)
        if names.models:
            patches.extend((call, cls, fn) for call, cls, fn in walker_patches(nodes, assignments, names, any_module=True)
                           if _module_of(cls) is not None)
    facts: list[PatchedSelfRead] = []
    for at, cls, fn_name in patches:
        fn = names.functions.get(fn_name)
        mod = _module_of(cls)
        if fn is None or mod is None or (guards is not None and _ruled_out(at, guards)):
            continue
        reads = _self_reads(fn, text, guards)
        if reads:
            facts.append(PatchedSelfRead(span=span(at), function=fn_name, cls=cls, module=mod, reads=reads))
    return facts


def _class_of(owner: str | None, names: Names) -> str | None:
    """The class name of a transformers layer class as written: a name imported from transformers, or a dotted path
    off a transformers module the module imports (`modeling_llama.LlamaAttention`)."""
    if owner is None:
        return None
    parts = owner.split(".")
    cls = names.originals.get(parts[0], parts[0]) if len(parts) == 1 else parts[-1]
    if len(parts) == 1 and parts[0] not in names.classes:
        return None
    if len(parts) > 1 and parts[0] not in names.modules:
        return None
    return cls if _LAYER.fullmatch(cls) else None


def _bound_onto(value: Node, target: Node) -> bool:
    """`types.MethodType(f, <the object whose forward is set>)`: `f` runs with that object as `self`."""
    value = unparenthesised(value)
    if value.type not in ("power", "atom_expr") or not is_trailer(value.children[-1], "("):
        return False
    args = call_args(value.children[-1])
    owner = "".join(flat(c) for c in target.children[:-1])
    return len(args) == 2 and not any(a.name or a.star for a in args) and flat(args[1].value) == owner


def _tested_class(node: Node, names: Names) -> str | None:
    """The layer class the innermost `if` around `node` tests the patched module against, in the branch holding
    it: `isinstance(m, LlamaAttention)` (one class, as `_class_of` reads it), `m.__class__.__name__ == "..."` or
    `type(m).__name__ == "..."` (streaming-llm's pos-shift patch, kvpruner's)."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "if_stmt":
            kids = parent.children
            at = kids.index(child)
            test = kids[at - 2] if at >= 2 and code(kids[at - 1]).strip() == ":" and \
                code(kids[at - 3]).strip() in ("if", "elif") else None
            if test is not None:
                return _class_in_test(test, names)
        child, parent = parent, parent.parent
    return None


def _class_in_test(test: Node, names: Names) -> str | None:
    if test.type in ("power", "atom_expr") and len(test.children) == 2 and code(test.children[0]).strip() == \
            "isinstance" and is_trailer(test.children[1], "("):
        args = call_args(test.children[1])
        return _class_of(flat(args[1].value), names) if len(args) == 2 else None
    if test.type == "comparison" and len(test.children) == 3 and code(test.children[1]).strip() == "==":
        left, right = flat(test.children[0]), test.children[2]
        if (left.endswith(".__class__.__name__") or (left.startswith("type(") and left.endswith(").__name__"))) \
                and right.type == "string":
            name = string_value(right)
            return name if name is not None and _LAYER.fullmatch(name) else None
    return None


def _function_of(value: Node) -> str | None:
    """`f` of `f`, `types.MethodType(f, ...)` / `MethodType(f, ...)`."""
    value = unparenthesised(value)
    if value.type == "name":
        return str(value.value)
    if value.type in ("power", "atom_expr") and (prefix(value, len(value.children) - 1) or "").endswith(
            "MethodType") and is_trailer(value.children[-1], "("):
        args = call_args(value.children[-1])
        if args and not args[0].name and not args[0].star and args[0].value.type == "name":
            return str(args[0].value.value)
    return None


@cache
def _module_of(cls: str) -> str | None:
    """The one tabled model module whose `attr:` facts cover `cls` (at some release), else None."""
    found = {key[len("attr:"):].rsplit(".", 2)[0] for key in releases.table().facts
             if key.startswith("attr:") and key.rsplit(".", 2)[1] == cls}
    return found.pop() if len(found) == 1 else None


def _ruled_out(node: Node, guards: VersionGuards) -> bool:
    """`node` sits in an `if` branch a version test decides against at the target: its own test False, or an
    earlier test of the chain True."""
    child, parent = node, node.parent
    while parent is not None and parent.type != "file_input":
        if parent.type == "if_stmt":
            kids = parent.children
            at = kids.index(child)
            for i, kid in enumerate(kids[:at]):
                if code(kid).strip() in ("if", "elif"):
                    decided = guards.decide(kids[i + 1])
                    if (decided is False and i + 3 == at) or (decided is True and i + 3 < at):
                        return True
        child, parent = parent, parent.parent
    return False


def _self_reads(fn: Node, text: str, guards: VersionGuards | None = None) -> tuple[tuple[str, Span], ...]:
    params = fn.get_params()
    if not params or params[0].star_count or params[0].name.value != "self":
        return ()
    first: dict[str, Span] = {}
    written: set[str] = set()
    # (node, under a branch): a read inside an `if`/`while`/`try` block may never run (axolotl's xformers patch reads
    # `self.num_key_value_heads` only under `if self.pretraining_tp > 1:`, having set it to 1 just above), so only
    # reads every call runs are claimed; a store anywhere still counts as the code setting the name.
    stack: list[tuple[Node, bool]] = [(k, False) for k in getattr(fn.children[-1], "children", ())]
    while stack:
        node, branch = stack.pop()
        if node.type in ("funcdef", "lambdef", "classdef"):
            continue
        if node.type in ("power", "atom_expr") and node.children[0].type == "name" and \
                node.children[0].value == "self" and is_trailer(node.children[1], "."):
            name = node.children[1].children[1].value
            if _stored(node):
                written.add(name)
            elif branch or (guards is not None and _ruled_out(node, guards)):
                pass
            elif name not in first or span(node).start < first[name].start:
                first[name] = span_between(node.children[0], node.children[1])
        kids = getattr(node, "children", ())
        if node.type in ("if_stmt", "while_stmt", "try_stmt", "for_stmt"):
            # The first test of an `if`/`while` runs; its blocks (and a loop's, a `try`'s) may not.
            stack.extend((k, branch or not (i == 1 and node.type in ("if_stmt", "while_stmt")))
                         for i, k in enumerate(kids))
        else:
            stack.extend((k, branch) for k in kids)
    out = []
    for name, at in sorted(first.items(), key=lambda item: item[1].start):
        if name in written or name.startswith("__") or re.search(rf"\.\s*{name}\s*(=[^=]|[+\-*/]=)", text) or \
                f"'{name}'" in text or f'"{name}"' in text:
            continue
        out.append((name, at))
    return tuple(out)


def _stored(node: Node) -> bool:
    """`self.<name>` (only that: two children) as a target of an assignment (`self.x = ...`, `a, self.x = ...`,
    `self.x += ...`, `self.x: int = ...`)."""
    if len(node.children) != 2:
        return False
    child, parent = node, node.parent
    while parent is not None and parent.type in ("testlist_star_expr", "exprlist", "atom", "testlist_comp"):
        child, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "annassign":
        return True
    return parent.type == "expr_stmt" and parent.children[0] is child and len(parent.children) > 1 and \
        (code(parent.children[1]).strip() == "=" or parent.children[1].type == "annassign" or
         code(parent.children[1]).strip().endswith("="))
