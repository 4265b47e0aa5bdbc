"""Which names of a module hold a loaded transformers model: one answer for every syntax reader (issue 29 item 4).

The hook reader (hooks.py: patched forwards, installed attentions, forward hooks, positions sent to a forward) and
the patched-attention reader (patched_attentions.py) each asked "is this name a loaded model here" and each
followed the binding shapes of its own (one wanted `X.from_pretrained(...)` bare, the other also with `.eval()`
after it). Here the binding is followed once, from what the code says, whatever reader asks:
- a load: `<transformers model class>.from_pretrained(...)`, followed by any of torch's `nn.Module` methods that
  return the module itself (`SELF_RETURNING`: `.eval()`, `.to(...)`, `.half()`, ...; docs/facts.md, the oracle's
  `facts:module_self_returning` at every release);
- a call of a module function whose every `return` gives a loaded model (`model = load()`);
- an attribute a class's methods bind to a transformers model they build or load (`self.model = X(config)`,
  `self.base = X.from_pretrained(...).eval()`, `setattr(self, "model", ...)`: `attribute_model`);
- a name bound to what hangs off a loaded model (`layers = model.model.layers`), a parameter of a module function
  a call of the module passes one to (`install(model)`), a parameter of a module class's `__init__` a construction
  passes one to (`Adapter(model)`), a loop variable over one (`for layer in model.model.layers`,
  `enumerate(...)`, `named_modules()`), in the order names flow.
A class the project defines is never a transformers model by this answer (its instances are not loads of a
transformers class). Read from the parso tree; nothing runs. Within one analysis worked out once (the module's
shared memo, engine/syntax/nodes.py `shared_memo`): both readers ask."""

from __future__ import annotations

from collections.abc import Iterator

from hf_cache_lint.engine.interpreter.hook_names import Names, is_trailer, prefix, reference_role, scope_id
from hf_cache_lint.engine.syntax.nodes import Node, call_args, shared_memo, string_value

# torch `nn.Module` methods that return the module itself (`return self`, or `return self._apply(...)`, which returns
# self), kept by transformers' `PreTrainedModel` overrides of `to`, `half`, `float`, `cuda` (the oracle:
# `facts:module_self_returning`, `model.<m>(...) is model` for each at 4.57.6, 5.23.0, 5.24.0 and 5.25.0; `cuda`,
# which the oracle cannot run, by torch's and transformers' source: docs/facts.md). On an
# instance of the project's model subclass they return that instance, not the transformers model inside it
# (`HiggsAudioModel.from_pretrained(...).eval()` keeps the subclass's own methods; methods.py `_instance`).
SELF_RETURNING = frozenset({"to", "cuda", "cpu", "eval", "train", "half", "float", "double", "bfloat16",
                            "requires_grad_"})
_MEMO = "bindings.models"
_ATTRIBUTES = "bindings.attributes"
_CUSTOM_GENERATE = "bindings.custom_generate"


def without_self_returning(value: Node) -> list[Node]:
    """The children of `value` (an `atom_expr`) without the trailing calls of `SELF_RETURNING` methods
    (`X.from_pretrained(p).eval().to(d)` -> `X`, `.from_pretrained`, `(p)`)."""
    kids = list(value.children)
    while len(kids) >= 3 and is_trailer(kids[-1], "(") and is_trailer(kids[-2], ".") and \
            kids[-2].children[1].value in SELF_RETURNING:
        kids = kids[:-2]
    return kids


def loaded_model(value: Node, names: Names) -> bool:
    """`<transformers model class>.from_pretrained(...)`, bare or followed by `SELF_RETURNING` calls."""
    if value.type not in ("power", "atom_expr"):
        return False
    kids = without_self_returning(value)
    return len(kids) >= 3 and is_trailer(kids[-2], ".", "from_pretrained") and is_trailer(kids[-1], "(") and \
        reference_role(prefix(value, len(kids) - 2), names) == "model"


def find_models(assignments: list[Node], loops: list[Node], funcdefs: list[Node], calls: list[Node],
                names: Names) -> None:
    """Adds to `names` (its `models`, `scopes` and `caches`) the names bound to a loaded model (module docstring)
    and to a transformers cache built here (`cache = DynamicCache()`). Within one analysis the answer is made once
    and copied into each asker's `names` (which must come from `module_names` of the same module)."""
    module = _module_of(assignments, loops, funcdefs, calls)
    memo = shared_memo(module) if module is not None else None
    made = memo.get(_MEMO) if memo is not None else None
    if made is None:
        found = Names(classes=names.classes, modules=names.modules, functions=names.functions,
                      originals=names.originals)
        _find(assignments, loops, funcdefs, calls, found)
        made = (frozenset(found.models), {k: frozenset(v) for k, v in found.scopes.items()},
                frozenset(found.caches))
        if memo is not None:
            memo[_MEMO] = made
    models, scopes, caches = made
    names.models.update(models)
    for name, ids in scopes.items():
        names.scopes.setdefault(name, set()).update(ids)
    names.caches.update(caches)


def _module_of(*groups: list[Node]) -> Node | None:
    for group in groups:
        if group:
            node: Node | None = group[0]
            while node is not None and node.parent is not None:
                node = node.parent
            return node
    return None


def _find(assignments: list[Node], loops: list[Node], funcdefs: list[Node], calls: list[Node], names: Names) -> None:
    for node in assignments:
        if len(node.children) == 3 and node.children[0].type == "name":
            value = node.children[2]
            if loaded_model(value, names):
                names.add_model(node.children[0].value, node)
            elif value.type in ("power", "atom_expr") and len(value.children) >= 2 and \
                    is_trailer(value.children[-1], "(") and \
                    reference_role(prefix(value, len(value.children) - 1), names) == "cache":
                names.caches.add(node.children[0].value)
    # What hangs off a loaded model, in the order names flow (a function returning one, a parameter given one, a
    # name bound to a part of it, a loop over it); twice, for a loop over a loop variable's attribute (`for layer in
    # model.model.layers`, nested).
    # A function returning a load (or a name it binds to one): only where the module loads one at all (each
    # function's body is walked for its returns).
    loaders = {fn.children[1].value for fn in funcdefs if _returns_model(fn, names)} if names.models else set()
    for _ in range(2):
        for node in assignments:
            if loaders and len(node.children) == 3 and node.children[0].type == "name" and \
                    node.children[1].type == "operator" and node.children[1].value == "=" and \
                    _calls_loader(node.children[2], loaders):
                names.add_model(node.children[0].value, node)  # `model = load()`
        for node in funcdefs:
            for param in _parameters_given_models(node, names, calls):
                names.add_model(param, node)
        for node in assignments:
            if len(node.children) == 3 and node.children[0].type == "name" and \
                    node.children[1].type == "operator" and node.children[1].value == "=":
                # `layers = model.model.layers`: a name for what hangs off a loaded model (attributes and items);
                # `lm = model.eval()`: the model itself
                value = node.children[2]
                kids = without_self_returning(value) if value.type in ("power", "atom_expr") else [value]
                if kids[0].type == "name" and names.model_at(kids[0].value, node) and \
                        (value.type in ("power", "atom_expr") or kids[0].value != node.children[0].value) and \
                        all(is_trailer(k, ".") or is_trailer(k, "[") for k in kids[1:]) and \
                        not any(is_trailer(k, ".") and k.children[1].value in ("config", "generation_config")
                                for k in kids[1:]):
                    names.add_model(node.children[0].value, node)
        for node in loops:
            targets, source = (node.children[1], node.children[3])
            plain = targets.type == "name"  # `for layer in model.model.layers` (as before: by name)
            if source.type in ("power", "atom_expr") and len(source.children) == 2 and \
                    getattr(source.children[0], "value", None) == "enumerate" and is_trailer(source.children[1], "("):
                # `for i, layer in enumerate(model.model.layers)`: the second target
                args = call_args(source.children[1])
                source = args[0].value if args and args[0].name is None and not args[0].star else source
                targets = _last_of_pair(targets)
            elif source.type in ("power", "atom_expr") and len(source.children) >= 3 and \
                    is_trailer(source.children[-2], ".") and \
                    source.children[-2].children[1].value in ("named_modules", "named_children"):
                targets = _last_of_pair(targets)  # `for name, module in model.named_modules()`
            root = source.children[0] if source.type in ("power", "atom_expr") else source
            if root.type == "name" and root.value in names.models and targets is not None and \
                    targets.type == "name" and (plain or names.model_at(root.value, node)):
                names.add_model(targets.value, node)


def attribute_model(owner: str, at: Node, names: Names) -> bool:
    """`owner` is `self.<attr>` and the class `at` is in binds that attribute, in any of its methods, to a
    transformers model it builds or loads (`self.model = MBartForCausalLM(config=...)`, Donut's; `self.base =
    AutoModelForCausalLM.from_pretrained(...).eval()`, proxy-tuning's). Within one analysis, each class's
    attributes are read once."""
    parts = owner.split(".")
    cls = at.parent
    while cls is not None and cls.type != "classdef":
        cls = cls.parent
    if len(parts) != 2 or parts[0] != "self" or cls is None:
        return False
    memo = shared_memo(_root(cls))
    table = memo.setdefault(_ATTRIBUTES, {}) if memo is not None else {}
    held = table.get(id(cls))
    if held is None:
        held = table[id(cls)] = frozenset(_model_attributes(cls, names))
    return parts[1] in held


def _model_attributes(cls: Node, names: Names) -> Iterator[str]:
    stack = [cls.children[-1]]
    while stack:
        node = stack.pop()
        if node.type == "classdef":
            continue  # a nested class's `self` is its own
        if node.type == "expr_stmt" and len(node.children) == 3 and node.children[1].type == "operator" and \
                node.children[1].value == "=":
            target, value = node.children[0], node.children[2]
            if target.type in ("power", "atom_expr") and len(target.children) == 2 and \
                    target.children[0].type == "name" and target.children[0].value == "self" and \
                    is_trailer(target.children[1], ".") and _built_or_loaded(value, names):
                yield target.children[1].children[1].value
        elif node.type in ("power", "atom_expr") and len(node.children) == 2 and node.children[0].type == "name" and \
                node.children[0].value == "setattr" and is_trailer(node.children[1], "("):
            args = call_args(node.children[1])  # `setattr(self, "model", X.from_pretrained(...))`
            attribute = string_value(args[1].value) if len(args) == 3 and not any(a.name or a.star for a in args) \
                else None
            if attribute and args[0].value.type == "name" and args[0].value.value == "self" and \
                    _built_or_loaded(args[2].value, names):
                yield attribute
        stack.extend(getattr(node, "children", ()))


def _built_or_loaded(value: Node, names: Names) -> bool:
    """A load (`loaded_model`) or a construction of a transformers model class (`LlamaForCausalLM(config)`), bare or
    followed by `SELF_RETURNING` calls."""
    if loaded_model(value, names):
        return True
    if value.type not in ("power", "atom_expr"):
        return False
    kids = without_self_returning(value)
    return len(kids) >= 2 and is_trailer(kids[-1], "(") and \
        reference_role(prefix(value, len(kids) - 1), names) == "model"


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def _returns_model(fn: Node, names: Names) -> bool:
    """Every `return` of module function `fn` (outside its nested functions and classes; at least one) gives a
    loaded model: a load, or a name `fn` binds to one (`model = X.from_pretrained(p); return model.eval()`)."""
    found = False
    stack = list(fn.children[-1].children) if fn.children[-1].type == "suite" else []
    while stack:
        node = stack.pop()
        if node.type in ("funcdef", "classdef", "lambdef"):
            continue
        if node.type == "return_stmt":
            if len(node.children) != 2:
                return False
            value = node.children[1]
            if value.type in ("power", "atom_expr"):
                kids = without_self_returning(value)
                value = kids[0] if len(kids) == 1 else value
            if not (loaded_model(value, names) or (value.type == "name" and value.value in names.models and
                                                   id(fn) in names.scopes.get(value.value, set()))):
                return False
            found = True
            continue
        stack.extend(getattr(node, "children", ()))
    return found


def _calls_loader(value: Node, loaders: set[str]) -> bool:
    """`load(...)`, `load(...).eval()`: a call of a module function returning a loaded model."""
    if value.type not in ("power", "atom_expr"):
        return False
    kids = without_self_returning(value)
    return len(kids) == 2 and kids[0].type == "name" and kids[0].value in loaders and is_trailer(kids[1], "(")


def _last_of_pair(targets: Node) -> Node | None:
    """`name, module` (a loop's two targets): the second; None for any other target."""
    kids = [k for k in getattr(targets, "children", ()) if k.type != "operator"]
    return kids[1] if targets.type == "exprlist" and len(kids) == 2 else None


def custom_generate_functions(calls: list[Node], assignments: list[Node]) -> set[str]:
    """The module functions handed to a `.generate(...)` call as `custom_generate=`: bare, in `functools.partial(f,
    ...)`, or through a name the function holding the call binds to either (`handler = partial(f, ...) if use_ras
    else None`, SoulX-Podcast's RAS sampler). generate calls a callable `custom_generate` as `custom_generate(self,
    ...)`, so the function's first parameter is the model (the oracle: `recall:heldout24/soulx_podcast_turns.py`
    sx_initial_position, AttributeError from 5.4.0 at its `self._get_initial_cache_position(...)`)."""
    out: set[str] = set()
    for node in calls:
        kids = node.children
        if len(kids) < 3 or not is_trailer(kids[-2], ".", "generate") or not is_trailer(kids[-1], "("):
            continue
        given = next((a.value for a in call_args(kids[-1]) if a.name == "custom_generate"), None)
        if given is None:
            continue
        values = [given]
        if given.type == "name":
            values.extend(a.children[2] for a in assignments if len(a.children) == 3 and
                          a.children[0].type == "name" and a.children[0].value == given.value and
                          a.children[1].type == "operator" and a.children[1].value == "=" and
                          scope_id(a) == scope_id(node))
        for value in values:
            out.update(_function_named(value))
    return out


def module_custom_generate_functions(module: Node) -> frozenset[str]:
    """`custom_generate_functions` over the whole module (its calls and assignments at any depth), once per
    analysis."""
    memo = shared_memo(module)
    made = memo.get(_CUSTOM_GENERATE) if memo is not None else None
    if isinstance(made, frozenset):
        return made
    calls: list[Node] = []
    assignments: list[Node] = []
    stack = [module]
    while stack:
        node = stack.pop()
        if node.type in ("power", "atom_expr"):
            calls.append(node)
        elif node.type == "expr_stmt":
            assignments.append(node)
        stack.extend(getattr(node, "children", ()))
    found = frozenset(custom_generate_functions(calls, assignments)) if "custom_generate" in module.get_code() \
        else frozenset()
    if memo is not None:
        memo[_CUSTOM_GENERATE] = found
    return found


def _function_named(value: Node) -> Iterator[str]:
    """The function `value` gives: a name, `partial(f, ...)` / `functools.partial(f, ...)`, either branch of a
    conditional expression."""
    if value.type == "name":
        yield value.value
    elif value.type == "test":  # `a if c else b`
        yield from _function_named(value.children[0])
        yield from _function_named(value.children[-1])
    elif value.type in ("power", "atom_expr") and is_trailer(value.children[-1], "(") and \
            prefix(value, len(value.children) - 1) in ("partial", "functools.partial"):
        args = call_args(value.children[-1])
        if args and args[0].name is None and not args[0].star and args[0].value.type == "name":
            yield args[0].value.value


def _parameters_given_models(fn: Node, names: Names, calls: list[Node]) -> set[str]:
    """The parameters of module function `fn` to which a call in the module passes a loaded model
    (`install(model)`, `install(lm=model)`), and of a module class's `__init__` to which a construction of the class
    passes one (`Adapter(model)`: R-KV's `HybridRKVAdapter.__init__(self, model, ...)`): the code says what they
    hold."""
    params = [p.name.value for p in fn.get_params() if p.star_count == 0]
    fname, out = fn.children[1].value, set()
    owner = fn.parent.parent if fn.parent is not None and fn.parent.type == "suite" else None
    if fname == "__init__" and owner is not None and owner.type == "classdef" and owner.parent is not None and \
            owner.parent.type == "file_input" and params:
        fname, params = owner.children[1].value, params[1:]  # `Cls(a, b)` binds `__init__(self, a, b)`
    for node in calls:  # the module's calls (`power`/`atom_expr` nodes)
        if len(node.children) == 2 and node.children[0].type == "name" and \
                node.children[0].value == fname and is_trailer(node.children[1], "("):
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
