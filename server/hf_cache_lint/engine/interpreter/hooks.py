"""Transformers' generation hooks as the code overrides, patches or feeds them (issue 29 item 3): the
`hook_override` facts (engine/facts/hook_override.py) and the `cache_position_sent` facts
(engine/facts/cache_position_sent.py), in one walk of the module's parso tree.

A function counts as a hook only where the code says it is transformers' (a project's own `update` or `forward`
never is): a method of a class deriving from a class imported from transformers (or from such a class of the
module), a module function assigned onto a transformers class's hook attribute, bound onto a loaded model's
module with `types.MethodType`, or registered `with_kwargs=True` as a forward hook on a loaded model's module.
"A loaded model" is a name the module binds to `<transformers name>.from_pretrained(...)`, and the loop variables
that iterate over what hangs off one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.cache_position_sent import CachePositionSent
from hf_cache_lint.engine.facts.hook_override import (
    CACHE_NAMES,
    KEYS,
    HookKind,
    HookOverride,
    HookRead,
    PositionalSuper,
    ReadHow,
    might_hold_hook,
)
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    code,
    dotted,
    imported_from,
    span,
    span_between,
    statement_walk,
    string_value,
)

_MODEL_SUFFIXES = ("ForCausalLM", "ForConditionalGeneration", "Model", "PreTrainedModel", "GenerationMixin",
                   "LMHeadModel", "ForSeq2SeqLM", "ForSpeechSeq2Seq", "ForVision2Seq", "ForImageTextToText")
_HOOK_ATTRIBUTES: dict[str, HookKind] = {"forward": "forward", "prepare_inputs_for_generation": "prepare_inputs", "update": "cache_update"}
_FORWARD_HOOKS = {"register_forward_hook": 2, "register_forward_pre_hook": 2}  # where `kwargs` is, `self` not counted


@dataclass
class _Names:
    classes: dict[str, str] = field(default_factory=dict)  # a transformers class name bound here -> its role
    modules: set[str] = field(default_factory=set)  # names bound to a transformers module
    functions: dict[str, Node] = field(default_factory=dict)  # the module's functions (any depth), by name
    models: set[str] = field(default_factory=set)  # names bound to a loaded model (and loop variables over one)
    # where each of those is bound: the ids of the functions (0: the module) whose code binds it so
    scopes: dict[str, set[int]] = field(default_factory=dict)

    def add_model(self, name: str, at: Node) -> None:
        self.models.add(name)
        self.scopes.setdefault(name, set()).add(_scope_id(at))

    def model_at(self, name: str, at: Node) -> bool:
        """`name` holds a loaded model where `at` reads it: bound so in the same function, or in the module."""
        scopes = self.scopes.get(name, set())
        return 0 in scopes or _scope_id(at) in scopes
    caches: set[str] = field(default_factory=set)  # names bound to a transformers cache built here


def _scope_id(node: Node) -> int:
    """The id of the function whose code `node` is in (a `def` itself: its own), 0 at module level."""
    fn: Node | None = node
    while fn is not None and fn.type != "funcdef":
        fn = fn.parent
    return id(fn) if fn is not None else 0


def _role(name: str) -> str | None:
    """What a transformers class is, by its name: "cache", "model", "attention", "decoder_layer" (None: other)."""
    if name.endswith("Cache"):
        return "cache"
    if "Attention" in name:
        return "attention"
    if name.endswith(("DecoderLayer", "Block")):
        return "decoder_layer"
    if name.endswith(_MODEL_SUFFIXES):
        return "model"
    return None


def hook_facts(module: Node, text: str) -> tuple[list[HookOverride], list[CachePositionSent]]:
    """Every hook fact and every position sent, in source order."""
    if not might_hold_hook(text):
        return [], []
    names = _Names()
    for node in statement_walk(module):  # imports and defs are statements: the insides of expressions are not read
        _bind(node, names)
    if _nothing_bound(names, text):
        return [], []
    # One walk, the nodes each scan reads by kind, each list in the walk's order (pre-order, left to right).
    ordered: list[Node] = []  # classes, statements and calls: the scan that makes the facts
    calls: list[Node] = []
    assignments: list[Node] = []
    loops: list[Node] = []
    funcdefs: list[Node] = []
    arguments: list[Node] = []
    dicts: list[Node] = []
    stack = [module]
    while stack:
        node = stack.pop()
        kids = getattr(node, "children", None)
        if kids is None:
            continue
        t = node.type
        if t == "power" or t == "atom_expr":
            calls.append(node)
            ordered.append(node)
        elif t == "expr_stmt":
            assignments.append(node)
            ordered.append(node)
        elif t == "classdef":
            ordered.append(node)
        elif t == "argument":
            arguments.append(node)
        elif t == "for_stmt" or t == "sync_comp_for":
            loops.append(node)
        elif t == "funcdef":
            funcdefs.append(node)
        elif t == "dictorsetmaker":
            dicts.append(node)
        stack.extend(reversed(kids))
    _find_models(assignments, loops, funcdefs, calls, names)
    hooks: list[HookOverride] = []
    sent: list[CachePositionSent] = []
    class_roles: dict[str, tuple[str, str]] = {}
    # Layer classes the module builds itself (`self.self_attn = MyAttention(config)`, a dict of them): their
    # caller is the module's own layer, which hands them the cache under its own name.
    constructed = {n.children[0].value for n in calls if n.children[0].type == "name" and
                   _is_trailer(n.children[1], "(")} | \
        {c.value for n in dicts for c in n.children[2::4] if c.type == "name"}
    for node in ordered:
        t = node.type
        if t == "classdef":
            found = _class_role(node, names, class_roles)
            if found is not None:
                class_roles[node.children[1].value] = found
                built = node.children[1].value in constructed
                hooks.extend(h for h in _methods(node, *found) if not (built and h.kind == "forward"))
        elif t == "expr_stmt":
            hooks.extend(_patch(node, names))
        else:
            hooks.extend(_forward_hook(node, names, calls))
            sent.extend(_sent(node, names, calls))
    callers = _own_callers(arguments)
    if _patches_model_forward(assignments, names):
        hooks = [h for h in hooks if h.kind != "forward"]
    hooks = [h for h in hooks if not (h.kind == "forward" and any(
        r.how == "parameter" and (r.key, h.function) not in callers and r.key in {k for k, _ in callers}
        for r in h.reads))]
    hooks.sort(key=lambda h: (h.span.start.line, h.span.start.column))
    return hooks, sent


def _nothing_bound(names: _Names, text: str) -> bool:
    """No name here is bound to transformers (transformers' own modules import relatively): then no class derives
    from a class of it, nothing is loaded by its `from_pretrained` or built from its cache classes, nothing patches
    its classes, and the one kind of hook left, a forward hook registered on a `.self_attn`, needs the word. The
    module then holds no hook fact (tests/engine/test_syntax_walks.py checks the answer is a whole walk's)."""
    return not names.classes and not names.modules and "register_forward" not in text


def _patches_model_forward(assignments: list[Node], names: _Names) -> bool:
    """`LlamaModel.forward = ...` (a transformers model class's forward replaced): the module's patched layers are
    then called by its own model code (unsloth), with the cache under whatever name that code passes."""
    for node in assignments:
        if len(node.children) == 3 and node.children[1].type == "operator" and \
                node.children[1].value == "=":
            target = node.children[0]
            if target.type in ("power", "atom_expr") and _is_trailer(target.children[-1], ".", "forward") and \
                    _reference_role(_prefix(target, len(target.children) - 1), names) == "model":
                return True
    return False


_LAYER_CALLEES = ("attn", "attention", "layer", "block")


def _own_callers(arguments: list[Node]) -> set[tuple[str, str]]:
    """(cache keyword, the function the call is in) of each call in the module that hands a layer the cache by
    keyword (`self.self_attn(..., past_key_value=past_key_value)`, `decoder_layer(..., past_key_value=...)`): a
    module that calls its layers itself (unsloth's patched decoder layers and models, a remote-code model's own
    decoder) feeds its patched attention the cache under its own name, not transformers'."""
    out: set[tuple[str, str]] = set()
    for node in arguments:
        if len(node.children) != 3 or node.children[0].type != "name" or \
                node.children[0].value not in CACHE_NAMES:
            continue
        trailer = node.parent.parent if node.parent.type == "arglist" else node.parent
        call = trailer.parent if trailer is not None else None
        if call is None or call.type not in ("power", "atom_expr"):
            continue
        at = call.children.index(trailer)
        callee = "".join(code(k) for k in call.children[:at]).lower()
        if not callee.rstrip("]").split(".")[-1].split("[")[0].endswith(_LAYER_CALLEES):
            continue
        fn = call.parent
        while fn is not None and fn.type != "funcdef":
            fn = fn.parent
        out.add((node.children[0].value, fn.children[1].value if fn is not None else ""))
    return out


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(getattr(n, "children", ())))


def _bind(node: Node, names: _Names) -> None:
    t = node.type
    if t == "import_from" and node.level == 0 and imported_from(node).split(".")[0] == "transformers":
        for name_node in node.get_defined_names():
            bound = name_node.value
            original = next((path[-1].value for path in node.get_paths() if path[-1].value == bound), bound)
            role = _role(original)
            if role is not None:
                names.classes[bound] = role
            elif bound[:1].islower():
                names.modules.add(bound)  # `from transformers.models.llama import modeling_llama`
    elif t == "import_name":
        for name_node in node.get_defined_names():
            if node.get_path_for_name(name_node)[0].value == "transformers":
                names.modules.add(name_node.value)
    elif t == "funcdef":
        names.functions.setdefault(node.children[1].value, node)


def _reference_role(path: str | None, names: _Names) -> str | None:
    """The role of a transformers class as written (`LlamaAttention`, `modeling_llama.LlamaAttention`)."""
    if path is None:
        return None
    parts = path.split(".")
    if len(parts) == 1:
        return names.classes.get(parts[0])
    return _role(parts[-1]) if parts[0] in names.modules else None


def _find_models(assignments: list[Node], loops: list[Node], funcdefs: list[Node], calls: list[Node],
                 names: _Names) -> None:
    """Names bound to `<transformers ref>.from_pretrained(...)`, then loop variables over what hangs off them."""
    for node in assignments:
        if len(node.children) == 3 and node.children[0].type == "name":
            value = node.children[2]
            if value.type in ("power", "atom_expr") and len(value.children) >= 3 and \
                    _is_trailer(value.children[-2], ".", "from_pretrained") and \
                    _reference_role(_prefix(value, len(value.children) - 2), names) == "model":
                names.add_model(node.children[0].value, node)
            elif value.type in ("power", "atom_expr") and len(value.children) >= 2 and \
                    _is_trailer(value.children[-1], "(") and \
                    _reference_role(_prefix(value, len(value.children) - 1), names) == "cache":
                names.caches.add(node.children[0].value)
    # What hangs off a loaded model, in the order names flow (a parameter given one, a name bound to a part of it,
    # a loop over it); twice, for a loop over a loop variable's attribute (`for layer in model.model.layers`,
    # nested).
    for _ in range(2):
        for node in funcdefs:
            for param in _parameters_given_models(node, names, calls):
                names.add_model(param, node)
        for node in assignments:
            if len(node.children) == 3 and node.children[0].type == "name" and \
                    node.children[1].type == "operator" and node.children[1].value == "=":
                # `layers = model.model.layers`: a name for what hangs off a loaded model (attributes and items)
                value = node.children[2]
                if value.type in ("power", "atom_expr") and value.children[0].type == "name" and \
                        names.model_at(value.children[0].value, node) and \
                        all(_is_trailer(k, ".") or _is_trailer(k, "[") for k in value.children[1:]) and \
                        not any(_is_trailer(k, ".") and k.children[1].value in ("config", "generation_config")
                                for k in value.children[1:]):
                    names.add_model(node.children[0].value, node)
        for node in loops:
            targets, source = (node.children[1], node.children[3])
            plain = targets.type == "name"  # `for layer in model.model.layers` (as before: by name)
            if source.type in ("power", "atom_expr") and len(source.children) == 2 and \
                    getattr(source.children[0], "value", None) == "enumerate" and _is_trailer(source.children[1], "("):
                # `for i, layer in enumerate(model.model.layers)`: the second target
                args = call_args(source.children[1])
                source = args[0].value if args and args[0].name is None and not args[0].star else source
                targets = _last_of_pair(targets)
            elif source.type in ("power", "atom_expr") and len(source.children) >= 3 and \
                    _is_trailer(source.children[-2], ".") and \
                    source.children[-2].children[1].value in ("named_modules", "named_children"):
                targets = _last_of_pair(targets)  # `for name, module in model.named_modules()`
            root = source.children[0] if source.type in ("power", "atom_expr") else source
            if root.type == "name" and root.value in names.models and targets is not None and \
                    targets.type == "name" and (plain or names.model_at(root.value, node)):
                names.add_model(targets.value, node)


def _last_of_pair(targets: Node) -> Node | None:
    """`name, module` (a loop's two targets): the second; None for any other target."""
    kids = [k for k in getattr(targets, "children", ()) if k.type != "operator"]
    return kids[1] if targets.type == "exprlist" and len(kids) == 2 else None


def _parameters_given_models(fn: Node, names: _Names, calls: list[Node]) -> set[str]:
    """The parameters of module function `fn` to which a call in the module passes a loaded model
    (`install(model)`, `install(lm=model)`): the code says what they hold."""
    params = [p.name.value for p in fn.get_params() if p.star_count == 0]
    fname, out = fn.children[1].value, set()
    for node in calls:  # the module's calls (`power`/`atom_expr` nodes)
        if len(node.children) == 2 and node.children[0].type == "name" and \
                node.children[0].value == fname and _is_trailer(node.children[1], "("):
            positional = 0
            for a in call_args(node.children[1]):
                if a.star:
                    break
                at = params.index(a.name) if a.name in params else positional if a.name is None else None
                if a.name is None:
                    positional += 1
                if at is not None and at < len(params) and a.value.type == "name" and \
                        names.model_at(a.value.value, node):
                    out.add(params[at])
    return out


def _prefix(node: Node, n: int) -> str | None:
    """`a.b.c` for the first `n` children of an atom_expr (a name and `.x` trailers), else None."""
    first = node.children[0]
    if first.type != "name":
        return None
    parts = [first.value]
    for t in node.children[1:n]:
        if not _is_trailer(t, "."):
            return None
        parts.append(t.children[1].value)
    return ".".join(parts)


def _is_trailer(node: Node, opener: str, name: str | None = None) -> bool:
    if node.type != "trailer" or node.children[0].value != opener:
        return False
    return name is None or (len(node.children) == 2 and node.children[1].value == name)


def _class_role(node: Node, names: _Names, own: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """(role, the transformers base class's name) of a class deriving from one (directly or through the module's
    own classes)."""
    if len(node.children) < 7:
        return None  # `class X:` without bases
    bases = node.children[3]
    items = [c for c in bases.children if c.type != "operator"] if bases.type == "arglist" else [bases]
    found: tuple[str, str] | None = None
    for base in items:
        if base.type == "argument":
            continue  # `metaclass=...`
        path = dotted(base)
        if path is None or not (_reference_role(path, names) or code(base) in own or
                                path.split(".")[-1] in ("GenerationMixin", "object", "ABC", "Generic")):
            return None  # also derives from a project's own class (optimum's OV wrappers): its hooks are its own
        role = _reference_role(path, names)
        if path is not None and path.split(".")[-1] == "GenerationMixin":
            continue  # a mixin beside a project's own model (optimum's OV models): its forward and cache are its own
        if found is None and role is not None:
            found = role, path.split(".")[-1]
        elif found is None and code(base) in own:
            found = own[code(base)]
    return found


def _methods(cls: Node, role: str, base: str) -> Iterator[HookOverride]:
    cls_name = cls.children[1].value
    for stmt in _suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "async_stmt":
            fn = fn.children[-1]
        if fn.type != "funcdef":
            continue
        name = fn.children[1].value
        kind: HookKind | None = None
        if role == "model" and name == "prepare_inputs_for_generation":
            kind = "prepare_inputs"
        elif role == "model" and "model_kwargs" in _params(fn)[0]:
            kind = "model_kwargs"
        elif role in ("attention", "decoder_layer") and name == "forward":
            kind = "forward"
        elif role == "cache" and name == "update":
            kind = "cache_update"
        if kind is not None:
            yield _fact(fn, kind, f"`{cls_name}.{name}` (`{cls_name}` derives from a transformers "
                                  f"{role.replace('_', ' ')} class)",
                        role if kind == "forward" else "", base=base)


def _patch(stmt: Node, names: _Names) -> Iterator[HookOverride]:
    """`Cls.forward = f`, `module.forward = types.MethodType(f, module)` (Cls a transformers class, module a
    loaded model's)."""
    if len(stmt.children) != 3 or stmt.children[1].type != "operator" or stmt.children[1].value != "=":
        return
    target, value = stmt.children[0], stmt.children[2]
    if target.type not in ("power", "atom_expr") or not _is_trailer(target.children[-1], "."):
        return
    attribute = target.children[-1].children[1].value
    kind = _HOOK_ATTRIBUTES.get(attribute)
    if kind is None:
        return
    owner_text = _prefix(target, len(target.children) - 1) or ""
    role = _reference_role(owner_text or None, names)
    fn_name = None
    if value.type == "name":
        fn_name = value.value
    elif value.type in ("power", "atom_expr") and (_prefix(value, len(value.children) - 1) or "").endswith(
            "MethodType") and _is_trailer(value.children[-1], "("):
        args = call_args(value.children[-1])
        if args and args[0].value.type == "name":
            fn_name = args[0].value.value
    fn = names.functions.get(fn_name or "")
    if fn is None:
        return
    if role is None and owner_text.split(".")[0] in names.models:
        role = "attention" if "attn" in owner_text.lower() or "attention" in owner_text.lower() else "decoder_layer"
        if kind != "forward":
            return
    if role is None:
        return
    if (kind == "forward" and role not in ("attention", "decoder_layer")) or \
            (kind == "prepare_inputs" and role != "model") or (kind == "cache_update" and role != "cache"):
        return
    yield _fact(fn, kind, f"`{fn_name}` (patched in as `{owner_text}.{attribute}`)", role if kind == "forward" else "")


def _forward_hook(node: Node, names: _Names, calls: list[Node]) -> Iterator[HookOverride]:
    """`<layer>.register_forward_hook(f, with_kwargs=True)` on a loaded model's layer, or on a `.self_attn`
    (transformers' name for a decoder layer's attention, kvpress's presses), `f` a module function or `self.f`."""
    kids = node.children
    if len(kids) < 3 or kids[0].type != "name":
        return
    for i in range(1, len(kids) - 1):
        if _is_trailer(kids[i], ".") and kids[i].children[1].value in _FORWARD_HOOKS and _is_trailer(kids[i + 1], "("):
            owner = "".join(code(k) for k in kids[:i])
            if kids[0].value not in names.models and ".self_attn" not in owner:
                return
            args = call_args(kids[i + 1])
            with_kwargs = any(a.name == "with_kwargs" and code(a.value) == "True" for a in args)
            if not with_kwargs or not args or args[0].name is not None:
                return
            role = "attention" if "attn" in owner.lower() or "attention" in owner.lower() or \
                _isinstance_role(node, kids[0].value, names) == "attention" else "decoder_layer"
            hook, bound = _unwrap_partial(args[0].value)
            for fn in _hook_functions(hook, names, calls):
                params = _params(fn)[0]
                container = params[2 + bound] if len(params) > 2 + bound else None
                yield _fact(fn, "forward_hook", f"a forward hook on `{owner}` (`{fn.children[1].value}`)", role,
                            container=container)
            return


def _unwrap_partial(value: Node) -> tuple[Node, int]:
    """`functools.partial(f, a, k=v)` / `partial(f, ...)` -> (`f`, the positional arguments it binds before the
    hook's own); any other hook expression -> (itself, 0)."""
    kids = value.children if value.type in ("power", "atom_expr") else []
    if len(kids) >= 2 and _is_trailer(kids[-1], "(") and \
            "".join(code(k) for k in kids[:-1]).strip() in ("partial", "functools.partial"):
        args = call_args(kids[-1])
        if args and args[0].name is None and not args[0].star:
            bound = 0
            for a in args[1:]:
                if a.star:
                    return value, 0  # how many it binds is not written
                bound += a.name is None
            return args[0].value, bound
    return value, 0


def _isinstance_role(node: Node, name: str, names: _Names) -> str | None:
    """The role of the transformers class an enclosing `if isinstance(name, C):` tests (`module` in a loop over
    `model.named_modules()`), else None."""
    parent = node.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "if_stmt":
            test = parent.children[1]
            if test.type in ("power", "atom_expr") and getattr(test.children[0], "value", None) == "isinstance" and \
                    _is_trailer(test.children[1], "("):
                args = call_args(test.children[1])
                if len(args) == 2 and code(args[0].value).strip() == name:
                    return _reference_role(code(args[1].value).strip(), names)
        parent = parent.parent
    return None


def _hook_functions(value: Node, names: _Names, calls: list[Node]) -> list[Node]:
    """The functions a hook argument stands for: a name (_functions_named), or `self.method` of the enclosing
    class."""
    if value.type == "name":
        return _functions_named(value, names, calls)
    if value.type in ("power", "atom_expr") and len(value.children) == 2 and code(value.children[0]) == "self" and \
            _is_trailer(value.children[1], "."):
        cls = value.parent
        while cls is not None and cls.type != "classdef":
            cls = cls.parent
        if cls is None:
            return []
        wanted = value.children[1].children[1].value
        for stmt in _suite(cls.children[-1]):
            fn = stmt.children[-1] if stmt.type == "decorated" else stmt
            if fn.type == "funcdef" and fn.children[1].value == wanted:
                return [fn]
    return []


def _functions_named(name: Node, names: _Names, calls: list[Node]) -> list[Node]:
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
                node.children[0].value == caller and _is_trailer(node.children[1], "("):
            args = [a for a in call_args(node.children[1]) if a.name is None and not a.star]
            if index < len(args) and args[index].value.type == "name":
                passed = names.functions.get(args[index].value.value)
                if passed is not None and passed not in found:
                    found.append(passed)
    return found


def _holds_cache(name: Node, names: _Names, calls: list[Node]) -> bool:
    """A name bound to a transformers cache built in the module, or a parameter of the enclosing function to which
    a caller passes one (`write_slot(cache, ...)`)."""
    if name.value in names.caches:
        return True
    enclosing = name.parent
    while enclosing is not None and enclosing.type != "funcdef":
        enclosing = enclosing.parent
    if enclosing is None:
        return False
    params = [p.name.value for p in enclosing.get_params() if p.star_count == 0]
    if name.value not in params:
        return False
    index, caller = params.index(name.value), enclosing.children[1].value
    for node in calls:  # the module's calls (`power`/`atom_expr` nodes)
        if node.type in ("power", "atom_expr") and len(node.children) >= 2 and node.children[0].type == "name" and \
                node.children[0].value == caller and _is_trailer(node.children[1], "("):
            args = [a for a in call_args(node.children[1]) if a.name is None and not a.star]
            if index < len(args) and args[index].value.type == "name" and args[index].value.value in names.caches:
                return True
    return False


def _params(fn: Node) -> tuple[list[str], str | None]:
    """The parameter names but `self`/`cls` (and `*args`), and the `**` parameter's name."""
    out, var_keyword = [], None
    for p in fn.get_params():
        if p.star_count == 2:
            var_keyword = p.name.value
        elif p.star_count == 0:
            out.append(p.name.value)
    if out and out[0] in ("self", "cls"):
        out = out[1:]
    return out, var_keyword


def _fact(fn: Node, kind: HookKind, target: str, reference: str, container: str | None = None,
          base: str = "") -> HookOverride:
    params, var_keyword = _params(fn)
    body = fn.children[-1]
    reads: list[HookRead] = []
    used = {n.value for n in _walk(body) if n.type == "name"}
    for p in fn.get_params():
        if p.star_count == 0 and p.name.value in CACHE_NAMES and p.name.value in used:
            last = p.children[-1]
            end = p.children[-2] if last.type == "operator" and last.value == "," else last
            reads.append(HookRead(p.name.value, "parameter", span_between(p.children[0], end),
                                  code(p).rstrip(",").rstrip()))
    if kind in ("forward", "prepare_inputs"):
        reads.extend(_position_parameter(fn, body))
    containers = {c for c in (var_keyword, container) if c}
    if kind == "model_kwargs":
        containers.add("model_kwargs")
    # The fourth argument of a `Cache.update` override, `cache_kwargs`: every key read from it counts (the
    # rotary tables `sin`/`cos` as much as `cache_position`), since 5.4 passes no dict at all.
    update_kwargs = params[3] if kind == "cache_update" and len(params) > 3 else None
    if update_kwargs is not None:
        containers.add(update_kwargs)
    compat = passes_on = guarded = False
    for node in _walk(body):
        if node.type == "argument" and len(node.children) == 3 and node.children[0].type == "name" and \
                node.children[0].value in CACHE_NAMES and code(node.children[2]) == node.children[0].value:
            passes_on = True
        if node.type in ("power", "atom_expr") and node.children[0].type == "name" and \
                node.children[0].value in containers:
            got = _key_read(node)
            if got is None:
                continue
            key, how, end = got
            if key == "cache":
                compat = True
            elif key in KEYS or node.children[0].value == update_kwargs:
                reads.append(HookRead(key, how, span_between(node.children[0], end),
                                      "".join(code(k) for k in node.children[:node.children.index(end) + 1]),
                                      node.children[0].value))
        elif node.type == "comparison" and _tests_none(node, update_kwargs or "cache_kwargs"):
            guarded = True  # `if cache_kwargs is not None:` guards the read
        elif node.type == "string" and string_value(node) == "cache":
            compat = True  # `"cache" in kwargs`, a dict built with the new name
    if any(r.key == "past_key_values" for r in reads):
        # `kwargs.get("past_key_values") or kwargs.get("past_key_value")`: the singular is an older release's
        # fallback, the plural the read that counts.
        reads = [r for r in reads if r.key != "past_key_value"]
    positional = _positional_super(body, "prepare_inputs_for_generation") if kind == "prepare_inputs" else \
        _positional_super(body, "forward") if kind == "forward" else None
    insert_at, indent = _first_line(body)
    last_param = [p for p in fn.get_params()]
    signature_end = None
    if last_param:
        lp = last_param[-1]
        end = lp.children[-2] if lp.children[-1].type == "operator" and lp.children[-1].value == "," else \
            lp.children[-1]
        e = span(end).end
        signature_end = Span(e, e)
    return HookOverride(kind, fn.children[1].value, target, span(fn.children[1]), tuple(params), var_keyword,
                        tuple(reads), compat, reference, positional, insert_at, indent, signature_end, guarded, passes_on, base)


def _tests_none(node: Node, name: str) -> bool:
    """`name is None`, `name is not None`, `name == None`, `name != None` (either way round): a guard on the dict
    itself, not on a value read from it (`cache_kwargs.get("sin") is not None` reads it unguarded)."""
    kids = node.children
    return len(kids) == 3 and {code(kids[0]).strip(), code(kids[2]).strip()} == {name, "None"}


def _position_parameter(fn: Node, body: Node) -> Iterator[HookRead]:
    """A `cache_position` parameter the body uses for something other than handing it on as it is
    (`f(..., cache_position=cache_position)`, `f(x, cache_position)`) and never tests against None (`if cache_position is None`,
    `cache_position or ...`, `if cache_position:`): the use the body makes of it first, `how` "subscript"
    for `cache_position[...]`, "get" for an attribute (`cache_position.shape`), else "parameter" (the span the
    parameter with its default)."""
    param = next((p for p in fn.get_params() if p.star_count == 0 and p.name.value == "cache_position"), None)
    if param is None:
        return
    uses = []
    for node in _walk(body):
        if node.type != "name" or node.value != "cache_position":
            continue
        parent = node.parent
        if parent.type == "argument" and parent.children[0] is node and len(parent.children) == 3:
            continue  # a keyword's name (`f(cache_position=...)`), not a use
        if parent.type == "argument" and parent.children[-1] is node and len(parent.children) == 3 and \
                getattr(parent.children[0], "value", None) == "cache_position":
            continue  # handed on by name: None is what the callee gets on that release too
        if parent.type == "arglist" or (parent.type == "trailer" and parent.children[0].value == "("):
            continue  # handed on by position, as it is (the callee's own use is the callee's)
        if parent.type in ("comparison", "or_test", "and_test", "not_test") or \
                (parent.type in ("if_stmt", "while_stmt") and node is not parent.children[0]) or \
                (parent.type == "test" and parent.children.index(node) == 2):
            return  # the body tests it: a None is handled
        uses.append(node)
    if not uses:
        return
    first = uses[0]
    after = first.get_next_sibling()
    if after is not None and after.type == "trailer" and after.children[0].value in ("[", "."):
        how: ReadHow = "subscript" if after.children[0].value == "[" else "get"
        yield HookRead("cache_position", how, span_between(first, after), code(first) + code(after).strip())
        return
    last = param.children[-1]
    end = param.children[-2] if last.type == "operator" and last.value == "," else last
    yield HookRead("cache_position", "parameter", span_between(param.children[0], end), code(param).rstrip(",").strip())


def _key_read(node: Node) -> tuple[str, ReadHow, Node] | None:
    """`x["key"]` -> (key, "subscript", that trailer); `x.get("key", ...)` / `x.pop("key", ...)` -> (key, "get",
    the call's trailer)."""
    kids = node.children
    if len(kids) >= 2 and _is_trailer(kids[1], "[") and len(kids[1].children) == 3:
        key = string_value(kids[1].children[1])
        return (key, "subscript", kids[1]) if key is not None else None
    if len(kids) >= 3 and _is_trailer(kids[1], ".") and kids[1].children[1].value in ("get", "pop") and \
            _is_trailer(kids[2], "("):
        args = call_args(kids[2])
        key = string_value(args[0].value) if args and args[0].name is None and not args[0].star else None
        return (key, "get", kids[2]) if key is not None else None
    return None


def _positional_super(body: Node, method: str) -> PositionalSuper | None:
    for node in _walk(body):
        if node.type in ("power", "atom_expr") and len(node.children) >= 4 and code(node.children[0]) == "super" \
                and _is_trailer(node.children[2], ".", method) and \
                _is_trailer(node.children[3], "("):
            args = call_args(node.children[3])
            positional = tuple(code(a.value) for a in args if a.name is None and not a.star)
            if len(positional) >= 2:
                return PositionalSuper(span_between(node.children[0], node.children[3]), positional,
                                       any(a.star == "**" for a in args))
    return None


def _suite(suite: Node) -> list[Node]:
    return [c for c in getattr(suite, "children", ()) if c.type not in ("newline", "indent", "dedent", "operator")]


def _first_line(body: Node) -> tuple[Span | None, str]:
    """Where a new first statement of the body goes (after a docstring), and its indentation."""
    if body.type != "suite":
        return None, ""
    statements = _suite(body)
    if not statements:
        return None, ""
    first = statements[0]
    if len(statements) > 1 and first.type == "simple_stmt" and first.children[0].type == "string":
        first = statements[1]
    start = span(first).start
    return Span(start, start), " " * start.column


def _sent(node: Node, names: _Names, calls: list[Node]) -> Iterator[CachePositionSent]:
    """`model(..., cache_position=p)` / `model.forward(...)` on a loaded model; `x.update(k, v, i, {"cache_position":
    p})`."""
    kids = node.children
    if len(kids) < 2 or kids[0].type != "name":
        return
    if kids[0].value in names.models:
        at = 1 if _is_trailer(kids[1], "(") else 2 if len(kids) > 2 and _is_trailer(kids[1], ".", "forward") and \
            _is_trailer(kids[2], "(") else 0
        if at:
            args = call_args(kids[at])
            for j, a in enumerate(args):
                if a.name == "cache_position":
                    removal = Span(span(args[j - 1].node).end, span(a.node).end) if j else \
                        Span(span(a.node).start, span(args[1].node).start) if len(args) > 1 else span(a.node)
                    yield CachePositionSent("forward", span(a.node), "".join(code(k) for k in kids[:at]),
                                            code(a.node), removal)
        return
    call = kids[-1]
    if not _is_trailer(call, "("):
        return
    args = call_args(call)
    if len(kids) == 3 and _is_trailer(kids[-2], ".", "update") and len(args) == 4 and args[3].name is None and \
            _holds_cache(kids[0], names, calls) and \
            args[3].value.type == "atom" and args[3].value.children[0].value == "{":
        inner = args[3].value.children[1]
        entries = inner.children if inner.type == "dictorsetmaker" else []
        for i, entry in enumerate(entries):
            if entry.type == "string" and string_value(entry) == "cache_position" and i + 2 < len(entries):
                yield CachePositionSent("update", span_between(entry, entries[i + 2]),
                                        "".join(code(k) for k in kids[:-2]),
                                        code(entry) + ": " + code(entries[i + 2]))

