"""Transformers' generation hooks as the code overrides, patches or feeds them (issue 29 item 3): the
`hook_override` facts (engine/facts/hook_override.py) and the `cache_position_sent` facts
(engine/facts/cache_position_sent.py), in one walk of the module's parso tree.

A function counts as a hook only where the code says it is transformers' (a project's own `update` or `forward`
never is): a method of a class deriving from a class imported from transformers (or from such a class of the
module), a module function assigned onto a transformers class's hook attribute, bound onto a loaded model's
module with `types.MethodType`, a class's own method installed as the generation hook of the transformers model it
holds (`self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference`), or registered `with_kwargs=True` as a forward hook on a loaded model's module.
"A loaded model" is a name the module binds to `<transformers name>.from_pretrained(...)`, and the loop variables
that iterate over what hangs off one.

The parts: hook_names.py binds the names (transformers classes by role, loaded models, caches built here); this
module finds the hooks and the positions sent; hook_signatures.py reads each hook's parameters and reads into its
fact."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.cache_position_sent import CachePositionSent
from hf_cache_lint.engine.facts.hook_override import CACHE_NAMES, HookKind, HookOverride, might_hold_hook
from hf_cache_lint.engine.interpreter.attention_swaps import swapped_in, swaps_attention
from hf_cache_lint.engine.interpreter.bindings import attribute_model, find_models
from hf_cache_lint.engine.interpreter.hook_classes import Generates, fails_first, generates
from hf_cache_lint.engine.interpreter.hook_names import (
    Names,
    binds_transformers,
    holds_cache,
    is_trailer,
    module_names,
    prefix,
    reference_role,
)
from hf_cache_lint.engine.interpreter.hook_registrations import forward_hooks, isinstance_role
from hf_cache_lint.engine.interpreter.hook_signatures import (
    hook_fact,
    params_of,
    updates_a_cache_itself,
)
from hf_cache_lint.engine.interpreter.hook_trees import base_items, suite, walk
from hf_cache_lint.engine.interpreter.position_chain import advanced, continues
from hf_cache_lint.engine.syntax.nodes import (
    Node,
    call_args,
    code,
    dotted,
    span,
    span_between,
    string_value,
    unparenthesised,
)
from hf_cache_lint.engine.text.text import contains

_HOOK_ATTRIBUTES: dict[str, HookKind] = {"forward": "forward", "prepare_inputs_for_generation": "prepare_inputs", "update": "cache_update"}


# The words the scan below needs to make any fact, each in the text as written (parso's leaves are the text's own):
# a class's hooks need the `class` keyword; a patch (`_patch`) assigns a `forward`, `update` or
# `prepare_inputs_for_generation` attribute; a forward hook is registered by `register_forward_hook` /
# `register_forward_pre_hook` (both hold `forward`); a position sent (`_sent`) is a `cache_position=` keyword or a
# `.update(...)` call.
_SCAN_WORDS = ("class", "forward", "update", "prepare_inputs_for_generation", "cache_position")


def _no_scan_word(text: str) -> bool:
    """The text holds none of `_SCAN_WORDS`, hence no hook fact: the walk, the names and the loaded models are left
    unread (most scripts: a keystroke on the 100-line script spent 6.5 M of its 25.2 M instructions here).
    tests/engine/test_syntax_walks.py checks the answer is the whole walk's."""
    return not any(contains(text, word) for word in _SCAN_WORDS)


def hook_facts(module: Node, text: str) -> tuple[list[HookOverride], list[CachePositionSent]]:
    """Every hook fact and every position sent, in source order."""
    if not might_hold_hook(text) or _no_scan_word(text):
        return [], []
    if not contains(text, "register_forward") and not binds_transformers(module, text):
        return [], []  # `_nothing_bound` without the names of every statement
    names = module_names(module)
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
    find_models(assignments, loops, funcdefs, calls, names)
    hooks: list[HookOverride] = []
    sent: list[CachePositionSent] = []
    class_roles: dict[str, tuple[str, str]] = {}
    class_generates: dict[str, Generates] = {}
    # Layer classes the module builds itself (`self.self_attn = MyAttention(config)`, a dict of them): their
    # caller is the module's own layer, which hands them the cache under its own name.
    constructed = {n.children[0].value for n in calls if n.children[0].type == "name" and
                   is_trailer(n.children[1], "(")} | \
        {c.value for n in dicts for c in n.children[2::4] if c.type == "name"}
    classdefs = {n.children[1].value: n for n in ordered if n.type == "classdef"}
    replaced = _replaced_forwards(assignments, calls)
    for node in ordered:
        t = node.type
        if t == "classdef":
            found = _class_role(node, names, class_roles)
            if found is not None:
                class_roles[node.children[1].value] = found
                built = node.children[1].value in constructed
                source = class_generates[node.children[1].value] = generates(node, names, class_generates)
                # A model class's generation hooks are transformers' only where its generate runs them: a head's
                # generate (called here or by whoever loads it); a class the module does not build itself (remote
                # code: an Auto class loading it adds `GenerationMixin` to one defining its own hook,
                # `add_generation_mixin_to_remote_model`); one it builds, only with `GenerationMixin` and where the
                # module calls generate. A backbone built here has no generate (from 4.50), and a class mixing it
                # in that the module never generates with runs its hooks from its own loop, with what that passes.
                # A head the module builds, holds only in names it never generates with nor hands on, and whose
                # hooks it calls itself (VibeVoice's streaming loop) runs them from its own loop, with its own keys.
                runs = (source == "head" and not _driven_by_hand(node, module, calls, assignments)) or \
                    not _built_here(node.children[1].value, constructed, calls) or (
                    source == "mixin" and _calls_generate(calls, text))
                hooks.extend(replace(h, fails_first=fails_first(node, found[1])) if h.kind == "cache_update" else h
                             for h in _methods(node, *found) if not (built and h.kind == "forward") and
                             (runs or h.kind not in ("prepare_inputs", "model_kwargs")))
        elif t == "expr_stmt":
            hooks.extend(_patch(node, names))
            hooks.extend(_installed_attention(node, names, class_roles, classdefs))
        else:
            hooks.extend(forward_hooks(node, names, calls))
            hooks.extend(_installed_attention(node, names, class_roles, classdefs))
            sent.extend(_sent(node, names, calls, replaced))
    if any(h.kind == "cache_update" for h in hooks) and _patch_updates_itself(assignments, names):
        hooks = [replace(h, updated_by_patch=True) if h.kind == "cache_update" else h for h in hooks]
    callers = _own_callers(arguments)
    if _patches_model_forward(assignments, names):
        hooks = [h for h in hooks if h.kind != "forward"]
    hooks = [h for h in hooks if not (h.kind == "forward" and any(
        r.how == "parameter" and (r.key, h.function) not in callers and r.key in {k for k, _ in callers}
        for r in h.reads))]
    hooks.sort(key=lambda h: (h.span.start.line, h.span.start.column))
    return hooks, sent


def _built_here(name: str, constructed: set[str], calls: list[Node]) -> bool:
    """The module builds the class `name` itself: `Name(...)` or `Name.from_pretrained(...)` (neither adds
    `GenerationMixin`; only an Auto class loading remote code does)."""
    return name in constructed or any(
        n.children[0].type == "name" and n.children[0].value == name and len(n.children) >= 3 and
        is_trailer(n.children[1], ".", "from_pretrained") and is_trailer(n.children[2], "(") for n in calls)


def _driven_by_hand(cls: Node, module: Node, calls: list[Node], assignments: list[Node]) -> bool:
    """Every instance the module builds of the class `cls` (`x = Cls(...)`, `x = Cls.from_pretrained(...)`) is bound
    to a plain name that the module only calls (its forward) or reads attributes off, never `.generate`, and it calls one of the class's own
    hooks on one (`x.prepare_inputs_for_generation(...)`, `x._update_model_kwargs_for_generation(...)`): no generate
    runs those hooks, the module does, with the keys it passes (the oracle: `recall:heldout13/
    vibevoice_windowed_cfg.py`'s `VibeVoiceStreamingLM`, which gets `past_key_values` on 4.57.6-5.25.0). The name
    bare anywhere else (an argument, a `return`, `isinstance`) may reach a generate: not by hand."""
    name = cls.children[1].value
    built = [n for n in calls if n.children[0].type == "name" and n.children[0].value == name and
             len(n.children) >= 2 and (is_trailer(n.children[1], "(") or is_trailer(n.children[1], ".", "from_pretrained"))]
    held: dict[str, Node] = {}
    for a in assignments:
        kids = a.children
        if len(kids) == 3 and kids[1].type == "operator" and kids[1].value == "=" and kids[0].type == "name" and \
                any(kids[2] is b for b in built):
            held[kids[0].value] = kids[0]
    if not built or len(held) != len(built):
        return False
    hooks = {fn.children[1].value for fn in (s.children[-1] if s.type == "decorated" else s
                                             for s in suite(cls.children[-1])) if fn.type == "funcdef" and
             (fn.children[1].value == "prepare_inputs_for_generation" or "model_kwargs" in params_of(fn)[0])}
    driven = False
    for leaf in walk(module):
        if leaf.type != "name" or leaf.value not in (name, *held):
            continue
        parent = leaf.parent
        if leaf.value == name:
            if parent is cls or any(leaf is b.children[0] for b in built):
                continue
            return False
        if any(leaf is t for t in held.values()):
            continue  # the binding itself
        if parent is not None and parent.type == "expr_stmt" and parent.children[0] is leaf:
            return False  # the name bound again to something else
        if parent is not None and parent.type in ("power", "atom_expr") and parent.children[0] is leaf and \
                is_trailer(parent.children[1], "("):
            continue  # `x(...)`: its forward, which runs no generation hook
        if parent is None or parent.type not in ("power", "atom_expr") or parent.children[0] is not leaf or \
                not is_trailer(parent.children[1], "."):
            return False
        attribute = parent.children[1].children[1].value
        if attribute == "generate":
            return False
        driven = driven or attribute in hooks
    return driven


def _calls_generate(calls: list[Node], text: str) -> bool:
    """`x.generate(...)` anywhere in the module (`self.generate`, `super().generate`, `model.generate`): the code
    says transformers' generate runs here, hence the hooks of a class that has it only from `GenerationMixin`."""
    return contains(text, "generate") and any(
        is_trailer(k, ".", "generate") and i + 1 < len(n.children) and is_trailer(n.children[i + 1], "(")
        for n in calls for i, k in enumerate(n.children))


def _nothing_bound(names: Names, text: str) -> bool:
    """No name here is bound to transformers (transformers' own modules import relatively): then no class derives
    from a class of it, nothing is loaded by its `from_pretrained` or built from its cache classes, nothing patches
    its classes, and the one kind of hook left, a forward hook registered on a `.self_attn`, needs the word. The
    module then holds no hook fact (tests/engine/test_syntax_walks.py checks the answer is a whole walk's)."""
    return not names.classes and not names.modules and not contains(text, "register_forward")


def _patches_model_forward(assignments: list[Node], names: Names) -> bool:
    """`LlamaModel.forward = ...` (a transformers model class's forward replaced): the module's patched layers are
    then called by its own model code (unsloth), with the cache under whatever name that code passes."""
    for node in assignments:
        if len(node.children) == 3 and node.children[1].type == "operator" and \
                node.children[1].value == "=":
            target = node.children[0]
            if target.type in ("power", "atom_expr") and is_trailer(target.children[-1], ".", "forward") and \
                    reference_role(prefix(target, len(target.children) - 1), names) == "model":
                return True
    return False


def _patch_updates_itself(assignments: list[Node], names: Names) -> bool:
    """A function of the module patched in as a transformers attention or decoder layer's `forward` (cakekv's
    `LlamaAttention.forward = llama_attn_forward_cake`) calls `<x>.update(k, v, layer_idx, ...)` itself, without
    `kwargs=`: the module's cache classes are updated by its own attention, the way it calls them."""
    for node in assignments:
        for hook in _patch(node, names):
            fn = names.functions.get(hook.function)
            if hook.kind == "forward" and fn is not None and updates_a_cache_itself(fn):
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


def _class_role(node: Node, names: Names, own: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """(role, the transformers base class's name) of a class deriving from one (directly or through the module's
    own classes)."""
    if len(node.children) < 7:
        return None  # `class X:` without bases
    bases = node.children[3]
    items = base_items(bases)
    found: tuple[str, str] | None = None
    for base in items:
        if base.type == "argument":
            continue  # `metaclass=...`
        path = dotted(base)
        if path is None or not (reference_role(path, names) or code(base) in own or
                                path.split(".")[-1] in ("GenerationMixin", "object", "ABC", "Generic")):
            return None  # also derives from a project's own class (optimum's OV wrappers): its hooks are its own
        role = reference_role(path, names)
        if path is not None and path.split(".")[-1] == "GenerationMixin":
            continue  # a mixin beside a project's own model (optimum's OV models): its forward and cache are its own
        if found is None and role is not None:
            found = role, names.originals.get(path, path.split(".")[-1])  # the class's own name, not an alias
        elif found is None and code(base) in own:
            found = own[code(base)]
    return found


def _methods(cls: Node, role: str, base: str) -> Iterator[HookOverride]:
    cls_name = cls.children[1].value
    for stmt in suite(cls.children[-1]):
        fn = stmt.children[-1] if stmt.type == "decorated" else stmt
        if fn.type == "async_stmt":
            fn = fn.children[-1]
        if fn.type != "funcdef":
            continue
        name = fn.children[1].value
        kind: HookKind | None = None
        if role == "model" and name == "prepare_inputs_for_generation":
            kind = "prepare_inputs"
        elif role == "model" and "model_kwargs" in params_of(fn)[0]:
            kind = "model_kwargs"
        elif role in ("attention", "decoder_layer") and name == "forward":
            kind = "forward"
        elif role == "cache" and name == "update":
            kind = "cache_update"
        if kind is not None:
            yield hook_fact(fn, kind, f"`{cls_name}.{name}` (`{cls_name}` derives from a transformers "
                                  f"{role.replace('_', ' ')} class)",
                        role if kind == "forward" else "", base=base)


def _patch(stmt: Node, names: Names) -> Iterator[HookOverride]:
    """`Cls.forward = f`, `module.forward = types.MethodType(f, module)` (Cls a transformers class, module a
    loaded model's)."""
    if len(stmt.children) != 3 or stmt.children[1].type != "operator" or stmt.children[1].value != "=":
        return
    # `Cls.prepare_inputs_for_generation = (\n    f)` (DynamicKV's long patch line) patches `f`.
    target, value = stmt.children[0], unparenthesised(stmt.children[2])
    if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], "."):
        return
    attribute = target.children[-1].children[1].value
    kind = _HOOK_ATTRIBUTES.get(attribute)
    if kind is None:
        return
    # `model._modules[name].forward = ...` (kvpruner): no dotted path, but the loaded model it hangs off.
    owner_text = prefix(target, len(target.children) - 1) or "".join(code(k) for k in target.children[:-1]).strip()
    role = reference_role(owner_text or None, names)
    fn_name = None
    bound_to_owner = False  # `f` bound with the patched object itself as its `self`
    if value.type == "name":
        fn_name = value.value
    elif value.type in ("power", "atom_expr") and (prefix(value, len(value.children) - 1) or "").endswith(
            "MethodType") and is_trailer(value.children[-1], "("):
        args = call_args(value.children[-1])
        if args and args[0].value.type == "name":
            fn_name = args[0].value.value
            bound_to_owner = len(args) == 2 and code(args[1].value).strip() == owner_text
    elif kind == "prepare_inputs" and value.type in ("power", "atom_expr") and is_trailer(value.children[-1], "(") \
            and prefix(value, len(value.children) - 1) in ("partial", "functools.partial"):
        # `model.prepare_inputs_for_generation = functools.partial(f, model)` (LiveCC): `f` bound to the model as
        # its `self`, the way `types.MethodType(f, model)` binds it.
        args = call_args(value.children[-1])
        if len(args) == 2 and not any(a.name or a.star for a in args) and args[0].value.type == "name" and \
                code(args[1].value).strip() == owner_text:
            fn_name, bound_to_owner = args[0].value.value, True
    fn = names.functions.get(fn_name or "")
    if kind == "prepare_inputs" and fn_name is None and (own := _own_method(value, stmt)) is not None and \
            attribute_model(owner_text, stmt, names):
        # `self.model.prepare_inputs_for_generation = self.prepare_inputs_for_inference` (Donut's, Nougat's
        # wrappers): the wrapper's bound method installed on the transformers model it holds; generate calls it
        # with the decoding loop's arguments, the wrapper's `self` already bound.
        fn, fn_name, role = own, value.children[-1].children[1].value, "model"
    if fn is None:
        return
    if role is None and kind == "prepare_inputs" and (bound_to_owner or (
            owner_text in names.models and names.model_at(owner_text, stmt))):
        # `model.prepare_inputs_for_generation = wrapped` on a loaded model: generate calls it. A function bound
        # onto an object as that object's own `prepare_inputs_for_generation` (`MethodType(f, m)`, `partial(f, m)`)
        # says the object is a generation model however the module got it (`from_pretrained(...).eval()`, a
        # helper's return): generate is what calls that hook.
        role = "model"
    elif role is None and owner_text.split(".")[0] in names.models:
        tested = isinstance_role(stmt, None, names)  # under `if isinstance(module, (LlamaAttention, ...)):`
        role = tested if tested in ("attention", "decoder_layer") else \
            "attention" if "attn" in owner_text.lower() or "attention" in owner_text.lower() else "decoder_layer"
        if kind != "forward":
            return
    if role is None:
        return
    if (kind == "forward" and role not in ("attention", "decoder_layer")) or \
            (kind == "prepare_inputs" and role != "model") or (kind == "cache_update" and role != "cache"):
        return
    fact = hook_fact(fn, kind, f"`{fn_name}` (patched in as `{owner_text}.{attribute}`)", role if kind == "forward" else "")
    patched = _block_patches(stmt, names)
    yield replace(fact, patched_classes=patched) if patched else fact


def _enclosing_class(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "classdef":
        parent = parent.parent
    return parent


def _own_method(value: Node, stmt: Node) -> Node | None:
    """`self.name` (no call) in a method of a class that defines `name`: that method."""
    if value.type not in ("power", "atom_expr") or len(value.children) != 2 or value.children[0].type != "name" or \
            value.children[0].value != "self" or not is_trailer(value.children[1], "."):
        return None
    cls = _enclosing_class(stmt)
    if cls is None:
        return None
    name = value.children[1].children[1].value
    for member in suite(cls.children[-1]):
        fn = member.children[-1] if member.type == "decorated" else member
        if fn.type == "funcdef" and fn.children[1].value == name:
            return fn
    return None


def _installed_attention(stmt: Node, names: Names, roles: dict[str, tuple[str, str]],
                         classdefs: dict[str, Node]) -> Iterator[HookOverride]:
    """`<layer>.self_attn = MyAttention(config)` where the layer hangs off a transformers model: `self` in a class
    deriving from a transformers model class (H2O's `self.model.layers[i].self_attn = H2OLlamaAttention(config)` in
    its `LlamaForCausalLM` subclass's `__init__`), or a loaded model (and the loop variables over its layers).
    transformers' decoder layer then calls the module's class as its attention, with its own keywords: the class's
    `forward` is a hook whatever the class derives from."""
    swapped = swapped_in(stmt)
    if swapped is not None:
        _, name, child = swapped
        cls = classdefs.get(name)
        if cls is not None and swaps_attention(stmt, child, names):
            tested = _tested_class(stmt, child)
            yield from _forward_of(cls, f"`{name}.forward` (swapped in for `{tested}`)")
        return
    installed_on = _self_attn_store(stmt)
    if installed_on is None:
        return
    root, value, installed = installed_on
    if value.type not in ("power", "atom_expr") or len(value.children) != 2 or \
            value.children[0].type != "name" or not is_trailer(value.children[1], "("):
        return
    cls = classdefs.get(value.children[0].value)
    if cls is None or root.type != "name":
        return
    if root.value == "self":
        owner = stmt.parent
        while owner is not None and owner.type != "classdef":
            owner = owner.parent
        role = roles.get(owner.children[1].value, ("", ""))[0] if owner is not None else ""
        # a model class's `self.model.layers[i].self_attn = ...` (H2O), or a decoder-layer class's own
        # `self.self_attn = ...` (TransMLA's `LlamaMLADecoderLayer`): the inherited layer forward calls it
        if role != "model" and not (role == "decoder_layer" and installed == "self.self_attn"):
            return
    elif not (root.value in names.models and names.model_at(root.value, stmt)):
        return
    yield from _forward_of(cls, f"`{cls.children[1].value}.forward` (installed as `{installed}`)")


def _forward_of(cls: Node, target: str) -> Iterator[HookOverride]:
    """The hook fact of the `forward` the class defines, installed as a transformers layer's attention."""
    for member in suite(cls.children[-1]):
        fn = member.children[-1] if member.type == "decorated" else member
        if fn.type == "funcdef" and fn.children[1].value == "forward":
            yield hook_fact(fn, "forward", target, "attention")


def _tested_class(stmt: Node, child: str) -> str:
    """The class (or tuple of classes) an enclosing `if isinstance(<child>, C):` tests, as written."""
    parent = stmt.parent
    while parent is not None and parent.type not in ("funcdef", "classdef", "file_input"):
        if parent.type == "if_stmt":
            test = parent.children[1]
            if test.type in ("power", "atom_expr") and getattr(test.children[0], "value", None) == "isinstance" and \
                    is_trailer(test.children[1], "("):
                args = call_args(test.children[1])
                if len(args) == 2 and code(args[0].value).strip() == child:
                    return code(args[1].value).strip()
        parent = parent.parent
    return "an attention class"


def _self_attn_store(stmt: Node) -> tuple[Node, Node, str] | None:
    """(the target's root name, the value, the target as written) of `<x>.self_attn = value` or
    `setattr(<x>, "self_attn", value)` (TransMLA's `setattr(layer, "self_attn", PartialRope(layer.self_attn))`)."""
    if stmt.type == "expr_stmt":
        if len(stmt.children) != 3 or stmt.children[1].type != "operator" or stmt.children[1].value != "=":
            return None
        target = stmt.children[0]
        if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], ".", "self_attn"):
            return None
        return target.children[0], stmt.children[2], dotted(target) or "".join(code(k) for k in target.children).strip()
    kids = stmt.children
    if stmt.type in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" and \
            kids[0].value == "setattr" and is_trailer(kids[1], "("):
        args = call_args(kids[1])
        if len(args) == 3 and not any(a.name or a.star for a in args) and \
                string_value(args[1].value) == "self_attn" and args[0].value.type == "name":
            return args[0].value, args[2].value, f"{args[0].value.value}.self_attn"
    return None


def _model_class(owner: str, names: Names) -> str | None:
    """`transformers.models.llama.modeling_llama.LlamaAttention` for a class of a transformers model module written
    in full or off the module's imported name (`modeling_llama.LlamaAttention`, `from transformers.models.llama
    import modeling_llama`); None for anything else (a bare class name's import already says whether it exists)."""
    parts = owner.split(".")
    if len(parts) < 2 or not parts[-2].startswith("modeling_"):
        return None
    if parts[0] == "transformers" and len(parts) >= 4:
        return owner
    if len(parts) == 2 and parts[0] in names.modules:
        return f"transformers.models.{parts[0][len('modeling_'):]}.{parts[0]}.{parts[1]}"
    return None


def _block_patches(stmt: Node, names: Names) -> tuple[str, ...]:
    """The model-module classes the statements of `stmt`'s block patch a hook attribute of (`stmt`'s own first),
    when `stmt` patches one. A block that is a `try` body is left alone: its handler may catch the AttributeError of
    a class the target lacks, and the rest of the program runs on."""
    own = _patched_class(stmt, names)
    if own is None:
        return ()
    line = stmt.parent
    block = line.parent if line is not None else None
    if block is None or (block.parent is not None and block.parent.type == "try_stmt"):
        return (own,)
    found = [own]
    for sibling in suite(block):
        for part in getattr(sibling, "children", ()):
            if part.type == "expr_stmt" and part is not stmt:
                cls = _patched_class(part, names)
                if cls is not None and cls not in found:
                    found.append(cls)
    return tuple(found)


def _patched_class(stmt: Node, names: Names) -> str | None:
    """The model-module class whose hook attribute `stmt` assigns (`<class path>.forward = ...`), else None."""
    if len(stmt.children) != 3 or stmt.children[1].type != "operator" or stmt.children[1].value != "=":
        return None
    target = stmt.children[0]
    if target.type not in ("power", "atom_expr") or not is_trailer(target.children[-1], ".") or \
            target.children[-1].children[1].value not in _HOOK_ATTRIBUTES:
        return None
    owner = prefix(target, len(target.children) - 1)
    return _model_class(owner, names) if owner else None


def _replaced_forwards(assignments: list[Node], calls: list[Node]) -> frozenset[str]:
    """The names whose `forward` the module replaces somewhere (`model.forward = f`, `setattr(model, "forward", f)`,
    Olive's export wrapper): a call of one may run the code's function, not transformers' forward (as the
    interpreter's `ModelState.forward` says of a call after the replacement). `torch.compile(model.forward)` put back
    is the model's own forward."""
    out: set[str] = set()
    for node in assignments:
        target = node.children[0]
        if len(node.children) == 3 and code(node.children[1]).strip() == "=" and target.type in ("power", "atom_expr") \
                and len(target.children) == 2 and target.children[0].type == "name" and \
                is_trailer(target.children[1], ".", "forward") and \
                not _names_forward(node.children[2], target.children[0].value):
            out.add(target.children[0].value)
    for node in calls:
        kids = node.children
        if len(kids) == 2 and kids[0].type == "name" and kids[0].value == "setattr" and is_trailer(kids[1], "("):
            args = call_args(kids[1])
            if len(args) == 3 and args[0].value.type == "name" and string_value(args[1].value) == "forward" and \
                    not _names_forward(args[2].value, args[0].value.value):
                out.add(args[0].value.value)
    return frozenset(out)


def _names_forward(value: Node, name: str) -> bool:
    """Whether `value` mentions `<name>.forward` (`torch.compile(model.forward)`), read as a dotted name so that
    spaces and line continuations around the dot do not hide it."""
    return any(dotted(n) == f"{name}.forward" for n in walk(value))


def _sent(node: Node, names: Names, calls: list[Node], replaced: frozenset[str] = frozenset()) \
        -> Iterator[CachePositionSent]:
    """`model(..., cache_position=p)` / `model.forward(...)` on a loaded model (not one whose `forward` the module
    replaces: `_replaced_forwards`); `x.update(k, v, i, {"cache_position": p})`."""
    kids = node.children
    if len(kids) < 2 or kids[0].type != "name":
        return
    if kids[0].value in replaced:
        return
    if kids[0].value in names.models:
        at = 1 if is_trailer(kids[1], "(") else 2 if len(kids) > 2 and is_trailer(kids[1], ".", "forward") and \
            is_trailer(kids[2], "(") else 0
        if at:
            args = call_args(kids[at])
            for j, a in enumerate(args):
                if a.name == "cache_position":
                    removal = Span(span(args[j - 1].node).end, span(a.node).end) if j else \
                        Span(span(a.node).start, span(args[1].node).start) if len(args) > 1 else span(a.node)
                    yield CachePositionSent("forward", span(a.node), "".join(code(k) for k in kids[:at]),
                                            code(a.node), removal, continues(node, names.models) or
                                            advanced(node, names.functions, calls))
        return
    call = kids[-1]
    if not is_trailer(call, "("):
        return
    args = call_args(call)
    if len(kids) == 3 and is_trailer(kids[-2], ".", "update") and len(args) == 4 and args[3].name is None and \
            holds_cache(kids[0], names, calls) and \
            args[3].value.type == "atom" and args[3].value.children[0].value == "{":
        inner = args[3].value.children[1]
        entries = inner.children if inner.type == "dictorsetmaker" else []
        for i, entry in enumerate(entries):
            if entry.type == "string" and string_value(entry) == "cache_position" and i + 2 < len(entries):
                yield CachePositionSent("update", span_between(entry, entries[i + 2]),
                                        "".join(code(k) for k in kids[:-2]),
                                        code(entry) + ": " + code(entries[i + 2]))
