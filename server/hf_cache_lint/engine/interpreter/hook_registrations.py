"""Forward hooks the module registers on transformers' layers (`<layer>.register_forward_hook(f, with_kwargs=True)`
on a loaded model's layer or on a `.self_attn`), and the functions a hook argument stands for (a module function, a
`functools.partial` of one, `self.method`, or what the callers pass a helper's parameter): one part of the hook
reader (engine/interpreter/hooks.py), cut from it by responsibility."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.facts.hook_override import HookOverride
from hf_cache_lint.engine.interpreter.hook_names import Names, is_trailer, prefix, reference_role
from hf_cache_lint.engine.interpreter.hook_signatures import hook_fact, params_of
from hf_cache_lint.engine.interpreter.hook_trees import suite
from hf_cache_lint.engine.syntax.nodes import Node, call_args, code

_FORWARD_HOOKS = {"register_forward_hook": 2, "register_forward_pre_hook": 2}  # where `kwargs` is, `self` not counted


def forward_hooks(node: Node, names: Names, calls: list[Node]) -> Iterator[HookOverride]:
    """`<layer>.register_forward_hook(f, with_kwargs=True)` on a loaded model's layer, or on a `.self_attn`
    (transformers' name for a decoder layer's attention, kvpress's presses), `f` a module function or `self.f`."""
    kids = node.children
    if len(kids) < 3 or kids[0].type != "name":
        return
    for i in range(1, len(kids) - 1):
        if is_trailer(kids[i], ".") and kids[i].children[1].value in _FORWARD_HOOKS and is_trailer(kids[i + 1], "("):
            owner = "".join(code(k) for k in kids[:i])
            if kids[0].value not in names.models and ".self_attn" not in owner:
                return
            args = call_args(kids[i + 1])
            with_kwargs = any(a.name == "with_kwargs" and code(a.value) == "True" for a in args)
            if not with_kwargs or not args or args[0].name is not None:
                return
            role = "attention" if "attn" in owner.lower() or "attention" in owner.lower() or \
                isinstance_role(node, kids[0].value, names) == "attention" else "decoder_layer"
            hook, bound = _unwrap_partial(args[0].value)
            pre = kids[i].children[1].value == "register_forward_pre_hook"
            for fn in _hook_functions(hook, names, calls):
                params = params_of(fn)[0]
                container = params[2 + bound] if len(params) > 2 + bound else None
                # A pre-hook's `kwargs` are the ones the layer is then called with: what it stores there is what
                # the layer gets (a post-hook's stores reach nothing).
                yield hook_fact(fn, "forward_hook", f"a forward {'pre-' if pre else ''}hook on `{owner}` "
                                f"(`{fn.children[1].value}`)", role, container=container, stores=pre)
            return


def _unwrap_partial(value: Node) -> tuple[Node, int]:
    """`functools.partial(f, a, k=v)` / `partial(f, ...)` -> (`f`, the positional arguments it binds before the
    hook's own); any other hook expression -> (itself, 0)."""
    kids = value.children if value.type in ("power", "atom_expr") else []
    if len(kids) >= 2 and is_trailer(kids[-1], "(") and \
            prefix(value, len(kids) - 1) in ("partial", "functools.partial"):
        args = call_args(kids[-1])
        if args and args[0].name is None and not args[0].star:
            bound = 0
            for a in args[1:]:
                if a.star:
                    return value, 0  # how many it binds is not written
                bound += a.name is None
            return args[0].value, bound
    return value, 0


def isinstance_role(node: Node, name: str | None, names: Names) -> str | None:
    """The role of the transformers class an enclosing `if isinstance(name, C):` tests (`module` in a loop over
    `model.named_modules()`; `name` None: whatever it tests), or of all the classes of a tuple `(C1, C2)` when they
    share one, else None."""
    parent = node.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "if_stmt":
            test = parent.children[1]
            if test.type in ("power", "atom_expr") and getattr(test.children[0], "value", None) == "isinstance" and \
                    is_trailer(test.children[1], "("):
                args = call_args(test.children[1])
                if len(args) == 2 and (name is None or code(args[0].value).strip() == name):
                    classes = args[1].value
                    items = [c for c in classes.children[1].children if c.type != "operator"] \
                        if classes.type == "atom" and classes.children[1].type == "testlist_comp" else [classes]
                    roles = {reference_role(code(c).strip(), names) for c in items}
                    return roles.pop() if len(roles) == 1 else None
        parent = parent.parent
    return None


def _hook_functions(value: Node, names: Names, calls: list[Node]) -> list[Node]:
    """The functions a hook argument stands for: a name (_functions_named), or `self.method` of the enclosing
    class."""
    if value.type == "name":
        return _functions_named(value, names, calls)
    if value.type in ("power", "atom_expr") and len(value.children) == 2 and value.children[0].type == "name" and \
            is_trailer(value.children[1], "("):
        # `register_forward_pre_hook(make_hook(), ...)`: the function a module factory returns, a def nested in it
        # (LightCompress's `kv_cache_input_hook()`).
        factory = names.functions.get(value.children[0].value)
        return _returned_defs(factory) if factory is not None else []
    if value.type in ("power", "atom_expr") and len(value.children) == 2 and code(value.children[0]) == "self" and \
            is_trailer(value.children[1], "."):
        cls = value.parent
        while cls is not None and cls.type != "classdef":
            cls = cls.parent
        if cls is None:
            return []
        wanted = value.children[1].children[1].value
        for stmt in suite(cls.children[-1]):
            fn = stmt.children[-1] if stmt.type == "decorated" else stmt
            if fn.type == "funcdef" and fn.children[1].value == wanted:
                return [fn]
    return []


def _returned_defs(factory: Node) -> list[Node]:
    """The functions defined in `factory`'s own body that a `return <name>` of it returns."""
    body = suite(factory.children[-1])
    nested = {stmt.children[1].value: stmt for stmt in body if stmt.type == "funcdef"}
    out: list[Node] = []
    for stmt in body:
        if stmt.type == "simple_stmt" and stmt.children[0].type == "return_stmt":
            value = stmt.children[0].children[1] if len(stmt.children[0].children) > 1 else None
            if value is not None and value.type == "name" and value.value in nested and nested[value.value] not in out:
                out.append(nested[value.value])
    return out


def _functions_named(name: Node, names: Names, calls: list[Node]) -> list[Node]:
    """The module functions a name stands for: one of them, or, for a parameter of the enclosing function, the
    module functions its callers pass in that place (`prefill_with(prune_cache_hook)`)."""
    fn = names.functions.get(name.value)
    if fn is not None:
        return [fn]
    enclosing = name.parent
    while enclosing is not None and enclosing.type != "funcdef":
        enclosing = enclosing.parent
    if enclosing is None:
        return []
    params = [p.name.value for p in enclosing.get_params() if p.star_count == 0]
    if name.value not in params:
        return []
    index, caller = params.index(name.value), enclosing.children[1].value
    found: list[Node] = []
    for node in calls:  # the module's calls (`power`/`atom_expr` nodes)
        if node.type in ("power", "atom_expr") and len(node.children) >= 2 and node.children[0].type == "name" and \
                node.children[0].value == caller and is_trailer(node.children[1], "("):
            args = [a for a in call_args(node.children[1]) if a.name is None and not a.star]
            if index < len(args) and args[index].value.type == "name":
                passed = names.functions.get(args[index].value.value)
                if passed is not None and passed not in found:
                    found.append(passed)
    return found
