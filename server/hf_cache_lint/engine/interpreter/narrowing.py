"""`isinstance` guards that say a name holds a transformers cache (issue 29 items 2 and 4).

`if isinstance(past_key_values, Cache):` (a class imported from transformers: `Cache`, `DynamicCache`,
`transformers.cache_utils.StaticCache`, ...) says, inside the branch, that the name holds a transformers cache,
where nothing else did (a hook's parameter, an unsaid model output): its uses there are checked as any other
cache's. The guard narrows on the side where it holds: the branch of `isinstance(x, C)` (also as an operand of
`and`), and what follows `if not isinstance(x, C): return` (the other side of a `not`, of an `or` of such tests).
A tuple of classes narrows only when every class in it is a transformers cache class (`(Cache, tuple)` may be a
tuple). A project's own class is never a transformers one, whatever its name: the class must evaluate to a
transformers `Symbol`. Only a name the code knows nothing better of is narrowed (unknown, None on some paths, a
cache the code does not say is one); a value the interpreter holds as something else (a model, an instance of the
project's own class, a tuple) stays what it is. A cache the code already says is one keeps its class, and takes
the test as its guard where the test names `Cache` or its class (`_confirmed`): that branch is the cache's own.
An attribute read off the project's instance that no code path set yet, though a method of the class assigns it
(`cached = self._cache` in a mixin: what an earlier call stored), is unknown data here, not a bound method
(`_unset_attributes`), so the test narrows it. The converse: `isinstance(x, tuple)` (builtin types no
transformers cache derives from, docs/facts.md) says x is NO cache where it holds; a cache x held is dropped there
(`isinstance(past, tuple) and past[0]`: compat code indexing a legacy tuple, never a cache).

A hook's cache parameter the target no longer fills (`past_key_values` of a `prepare_inputs_for_generation`
override on 5.24, which passes `cache=`: HFC010) is None there, so its guard is false and the guarded uses are
never reached on that target (`reached`). Where the target still passes it as `past_key_values`, generate fills it
with its cache (`generate_fills`): the override's uses of it are checked as a cache's, class unsaid."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import BEAM_CACHE, GENERATE_CACHE, CacheUse
from hf_cache_lint.engine.facts.hook_override import CACHE_NAMES, HookOverride
from hf_cache_lint.engine.interpreter.init_members import defines_method, sets_attribute
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    ClassDef,
    Const,
    InstanceState,
    Maybe,
    Method,
    ModelState,
    Ref,
    Symbol,
    Unknown,
    Value,
    maybe,
)
from hf_cache_lint.engine.syntax.nodes import Node, call_args

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.expressions import Expressions

# A name bound to NOT_A_CACHE is one `isinstance(x, tuple)` (a builtin type no transformers cache is an instance
# of) says is no cache where the test holds: `isinstance(past, tuple) and past[0]` reads a tuple, not a cache.
NOT_A_CACHE = Unknown("a value the code tests is a builtin tuple, list or dict, not a cache")
Narrowed = dict[str, CacheVal | Unknown]
# The builtin types `isinstance(x, T)` may name (alone or in a tuple of them) that no transformers cache class of
# any release derives from: where the test holds, x is no cache.
_NOT_CACHE_TYPES = frozenset({"tuple", "list", "dict", "str", "int", "float", "bool", "bytes"})


def narrowing(test: Node, ex: Expressions) -> tuple[Narrowed, Narrowed]:
    """The names `test` says hold a transformers cache where it is true, and where it is false."""
    t = test.type
    kids = test.children if hasattr(test, "children") else []
    if t == "not_test":
        when_true, when_false = narrowing(kids[1], ex)
        return when_false, when_true
    if t == "and_test":  # true: every operand holds
        out: Narrowed = {}
        for k in kids[::2]:
            out.update(narrowing(k, ex)[0])
        return out, {}
    if t == "or_test":  # false: no operand holds
        out = {}
        for k in kids[::2]:
            out.update(narrowing(k, ex)[1])
        return {}, out
    if t == "atom" and len(kids) == 3 and kids[0].value == "(":
        return narrowing(kids[1], ex)
    if t in ("power", "atom_expr") and len(kids) == 2 and kids[0].type == "name" and kids[0].value == "isinstance" \
            and kids[1].type == "trailer" and kids[1].children[0].value == "(":
        args = call_args(kids[1])
        if len(args) == 2 and all(a.name is None and not a.star for a in args) and args[0].value.type == "name":
            cache = _cache_class(args[1].value, ex)
            if cache is not None:
                at = (cache.site.span.start.line, cache.site.span.start.column) if cache.site is not None else None
                return {args[0].value.value: replace(cache, guard=ex.s.code(test), guard_at=at)}, {}
            if _builtin_types(args[1].value, ex):
                return {args[0].value.value: NOT_A_CACHE}, {}
    return {}, {}


def _builtin_types(node: Node, ex: Expressions) -> bool:
    """`tuple`, `(tuple, list)`: builtin types only, none of their names rebound by the code."""
    kids = node.children if hasattr(node, "children") else []
    if node.type == "atom" and len(kids) == 3 and kids[0].value == "(" and kids[1].type == "testlist_comp":
        items = [c for c in kids[1].children if c.type != "operator"]
        return bool(items) and all(_builtin_types(c, ex) for c in items)
    if node.type != "name" or node.value not in _NOT_CACHE_TYPES or node.value in ex.s.state.names:
        return False
    value = ex.eval(node)
    return type(value) is Symbol and value.qualname == f"builtins.{node.value}"


def narrow(names: Narrowed, ex: Expressions) -> dict[str, Value]:
    """Bind each name of `names` (as the current path knows it: a local, or the module's at its top level) to its
    narrowed cache, where the path knows nothing better of it; what each name so bound held before."""
    state = ex.s.state
    before: dict[str, Value] = {}
    for name, cache in names.items():
        if cache is NOT_A_CACHE:
            if name in state.names and (kept := _without_caches(state.names[name])) is not None:
                before[name] = state.names[name]
                state.names[name] = kept
        elif name in state.names and _open(_unset_attributes(state.names[name], ex)):
            before[name] = state.names[name]
            state.names[name] = cache
        elif type(cache) is CacheVal and name in state.names and \
                (known := _confirmed(state.names[name], cache)) is not None:
            before[name] = state.names[name]
            state.names[name] = known
    return before


def _confirmed(value: Value, cache: CacheVal) -> CacheVal | None:
    """A cache the code already says is one (`DynamicCache()`, a forward's), tested by `isinstance(x, Cache)` (or its
    own class): the same cache, with the test as its guard, so the branch is the cache's own and not a compat
    probe (GOT-OCR's `_cached_lengths(filled_cache())` reads `seen_tokens` there). None for a test of another class
    (the branch is not this cache's) or a cache already guarded."""
    if type(value) is not CacheVal or not value.said or value.guard is not None:
        return None
    if cache.cls != "Cache" and cache.cls != (value.cls or "DynamicCache"):
        return None
    return replace(value, guard=cache.guard, guard_at=cache.guard_at)


def reached(uses: Sequence[CacheUse], hooks: Sequence[HookOverride], tree: Node, target: Target) -> list[CacheUse]:
    """`uses` but the guarded ones on a hook's cache parameter the target no longer fills: inside that hook, or in a
    function it hands the guarded cache to (the guard's test is in the hook)."""
    unfed: list[tuple[tuple[int, int], tuple[int, int], str]] = []  # (the hook's start, its end, the parameter)
    for hook in hooks:
        names = _unfed(hook, target)
        if not names:
            continue
        fn = tree.get_leaf_for_position((hook.span.start.line, hook.span.start.column)).parent
        if fn is None or fn.type != "funcdef":
            continue
        unfed.extend((fn.start_pos, fn.end_pos, name) for name in names)
    if not unfed:
        return list(uses)
    # A cache the code passes the hook itself (a direct call with a forward's cache) is that call's, whatever
    # generate passes: only a use the test alone makes a cache's is the hook's unfed parameter.
    return [u for u in uses if u.guard is None or not u.narrowed
            or not any(_unfed_guard(u, start, end, name) for start, end, name in unfed)]


def _unfed_guard(use: CacheUse, start: tuple[int, int], end: tuple[int, int], name: str) -> bool:
    """Whether `use` is guarded by the hook's test of its unfed parameter `name`: on it inside the hook, or in a
    helper the hook hands it to under that test (InternVL's `_seen_tokens(past_key_values)`: the guard's position is
    in the hook, the use's is not)."""
    if name == use.receiver and start <= (use.span.start.line, use.span.start.column) < end:
        return True
    at = use.guard_at
    tested = re.match(r"isinstance\(\s*(\w+)\s*,", use.guard or "")
    return at is not None and tested is not None and tested[1] == name and start <= (at.line, at.column) < end


def _unfed(hook: HookOverride, target: Target) -> set[str]:
    """The cache parameters of `hook` the target passes no cache to (as HFC010 reports them)."""
    if hook.compat:
        return set()  # it also takes the cache under its new name (and may rebind the parameter to it)
    params = {r.key for r in hook.reads if r.how == "parameter" and r.key in CACHE_NAMES}
    if hook.kind in ("prepare_inputs", "model_kwargs"):
        moved = target.behaviour_since("cache_reaches_hooks_as_cache") is not None
        return params & {"past_key_values"} if moved else set()
    if hook.kind in ("forward", "forward_hook") and hook.reference:
        signature = target.hook_signature(hook.reference)
        return {p for p in params if p not in signature and target.hook_parameter_gone(hook.reference, p)}
    return set()


def _without_caches(value: Value) -> Value | None:
    """What a name holding `value` holds where a test says it is no cache: its options but the caches (unknown if
    none is left); None where `value` holds no cache (nothing to change)."""
    if type(value) is CacheVal:
        return NOT_A_CACHE
    if type(value) is Maybe and any(type(v) is CacheVal for v, _ in value.options):
        rest = [(v, c) for v, c in value.options if type(v) is not CacheVal]
        return maybe(rest) if rest else NOT_A_CACHE
    return None


def _unset_attributes(value: Value, ex: Expressions) -> Value:
    """`value` with each attribute read off the project's instance that its class sets nowhere before (what the
    interpreter holds as a bound `Method` of that name, though the class defines no such method) as unknown: a
    mixin's `cache_to_check = self._cache` (Parler-TTS's `_get_cache`, set by an earlier call) is data the code
    does not say more of."""
    if type(value) is Maybe:
        return Maybe(tuple((_unset_attributes(v, ex), c) for v, c in value.options))
    if type(value) is not Method or type(value.owner) is not Ref:
        return value
    obj = ex.s.obj(value.owner)
    cls = ex.s.module_name(obj.class_name) if isinstance(obj, InstanceState) else None
    if not isinstance(cls, ClassDef) or defines_method(cls, value.name, ex.s.module_name) \
            or not sets_attribute(cls, value.name, ex.s.module_name):
        return value
    return Unknown(f"`self.{value.name}`")


def _open(value: Value) -> bool:
    """Nothing better is known of `value`: unknown, a cache not said to be one, or a Maybe of those and None."""
    if type(value) is Maybe:
        return all(_open(v) or (type(v) is Const and v.value is None) for v, _ in value.options) and \
            any(type(v) is not Const for v, _ in value.options)
    # The cache generate passes a hook (`generate_fills`): an `isinstance` test says more (its class, and that the
    # code tests for it), so it narrows as an unknown name would.
    return type(value) is Unknown or (type(value) is CacheVal and (not value.said or value.class_name == GENERATE_CACHE))


def _cache_class(node: Node, ex: Expressions) -> CacheVal | None:
    """The cache `isinstance(x, node)` says x is: a transformers cache class, or a tuple of only such classes (as
    their base, `Cache`); None for anything else."""
    kids = node.children if hasattr(node, "children") else []
    if node.type == "atom" and len(kids) == 3 and kids[0].value == "(" and kids[1].type == "testlist_comp":
        items = [c for c in kids[1].children if c.type != "operator"]
        found = [_cache_class(c, ex) for c in items]
        if not found or any(f is None for f in found):
            return None
        return found[0] if len({f.cls for f in found if f is not None}) == 1 else \
            CacheVal("Cache", ex.s.site(node, f"`{ex.s.code(node)}`"), "Cache", "transformers.cache_utils",
                     layered=False)
    if not _dotted(node):
        return None  # `type(y)`, a call: evaluating it again could run code
    value = _class_or_none(ex.eval(node))
    if type(value) is not Symbol or not value.qualname.startswith("transformers."):
        return None
    parts = value.qualname.split(".")
    name = parts[-1]
    if not (name.endswith("Cache") and name[:1].isupper()):
        return None
    module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
    # `Cache` itself says no more than "a cache": an EncoderDecoderCache is one, and has no `.layers` on 5.x.
    return CacheVal(name, ex.s.site(node, f"`{name}`"), name, module,
                    layered=name not in ("Cache", "EncoderDecoderCache"))


def _class_or_none(value: Value) -> Value:
    """The class a name holds that is None on some paths (`except ImportError: Cache = None`): where
    `isinstance(x, Cache)` is true, it was the class (`isinstance(x, None)` raises TypeError)."""
    if type(value) is not Maybe:
        return value
    classes = {v for v, _ in value.options if not (type(v) is Const and v.value is None)}
    return classes.pop() if len(classes) == 1 else value


def _dotted(node: Node) -> bool:
    """A name, or a name with `.attribute` trailers (`transformers.cache_utils.Cache`)."""
    if node.type == "name":
        return True
    kids = node.children if node.type in ("power", "atom_expr") else []
    return bool(kids) and kids[0].type == "name" and all(
        k.type == "trailer" and k.children[0].value == "." for k in kids[1:])


__all__ = ["Narrowed", "attention_unfilled", "cache_is_builtin", "narrow", "narrowing", "reached"]


def generate_fills(node: Node, params: Sequence[Any], ex: Expressions) -> CacheVal | None:
    """What the `past_key_values` parameter of `node`, a `prepare_inputs_for_generation` override in a direct
    subclass of a transformers model class, holds: the cache transformers' generate calls it with (one it built or
    was given, a `DynamicCache` unless the code passes another), up to the release that passes it as `cache=`
    instead (5.24.0: there the parameter is None, HFC010's finding). generate may also pass None
    (`use_cache=False`): a `None` test in the body keeps that path apart. None where nothing says so."""
    if ex.s.target.behaviour_since("cache_reaches_hooks_as_cache") is not None:
        return None
    param = next((p for p in params[1:] if p.name.value == "past_key_values" and p.star_count == 0), None)
    cls = node.search_ancestor("classdef")
    if param is None or cls is None or not _model_based(cls, ex):
        return None
    return CacheVal(GENERATE_CACHE, ex.s.site(param.name, "the `past_key_values` generate passes to "
                                                          "`prepare_inputs_for_generation`"))


def patched_generate_fills(node: Node, params: Sequence[Any], ex: Expressions) -> CacheVal | None:
    """As `generate_fills`, for a module function the module sets on a transformers model class as its
    `prepare_inputs_for_generation` (`transformers.models.llama.modeling_llama.LlamaForCausalLM.
    prepare_inputs_for_generation = f`, MInference's through PyramidKV's `replace_llama`, heldout20; a statement
    anywhere in the module, which may run after the function's own check): generate calls it on that class's
    models with its cache as `past_key_values` (the function's first parameter is the model)."""
    if ex.s.target.behaviour_since("cache_reaches_hooks_as_cache") is not None or len(params) < 2:
        return None
    param = next((p for p in params[1:] if p.name.value == "past_key_values" and p.star_count == 0), None)
    if param is None or node.parent is None or node.parent.type not in ("file_input", "suite") or \
            not _patched_as_model_hook(node, ex):
        return None
    return CacheVal(GENERATE_CACHE, ex.s.site(param.name, "the `past_key_values` generate passes to "
                                                          "`prepare_inputs_for_generation`"))


def _patched_as_model_hook(node: Node, ex: Expressions) -> bool:
    """Some statement of the module is `<transformers model class>.prepare_inputs_for_generation = <node's name>`."""
    name = node.name.value
    stack = [node.get_root_node()]
    while stack:
        n = stack.pop()
        if n.type == "expr_stmt" and len(n.children) == 3 and n.children[1].type == "operator" and \
                n.children[1].value == "=" and n.children[2].type == "name" and n.children[2].value == name:
            target = n.children[0]
            kids = target.children if target.type in ("power", "atom_expr") else []
            if len(kids) >= 2 and kids[-1].type == "trailer" and kids[-1].children[0].value == "." and \
                    kids[-1].children[1].value == "prepare_inputs_for_generation":
                owner = ex.eval_chain(kids[0], list(kids[1:-1]), target) if len(kids) > 2 else ex.eval(kids[0])
                if isinstance(owner, Symbol) and owner.qualname.startswith("transformers.") and \
                        ("For" in owner.qualname.rsplit(".", 1)[-1]):
                    return True
        stack.extend(getattr(n, "children", ()))
    return False


# `num_beams=` given a value other than the literal 1 (`num_beams=2`, `num_beams=num_beams`): the module asks some
# generate for beam search.
_BEAMS = re.compile(r"\bnum_beams\s*=\s*(?!1\b)[\w(]")


def beam_fills(node: Node, params: Sequence[Any], ex: Expressions) -> tuple[str, CacheVal] | None:
    """The cache parameter of `node`, a `_reorder_cache(past, beam_idx)` override (a static method, or a method
    after `self`) in a direct subclass of a transformers model class, and what it holds: the cache generate's beam
    search passes it at every step (every release in the table: `if hasattr(self, "_reorder_cache")`), a
    `DynamicCache` unless the code passes another. Only where the module asks a generate for beams (`num_beams=`,
    not 1): without beam search generate never calls it."""
    cls = node.search_ancestor("classdef")
    if cls is None or not _BEAMS.search(ex.s.text) or not _model_based(cls, ex):
        return None
    rest = [p for p in params if p.star_count == 0]
    static = node.parent is not None and node.parent.type == "decorated" and "staticmethod" in ex.s.code(
        node.parent.children[0])
    if len(rest) != (2 if static else 3):
        return None
    param = rest[0 if static else 1]
    return param.name.value, CacheVal(BEAM_CACHE, ex.s.site(param.name, "the cache generate's beam search passes "
                                                                        "to `_reorder_cache`"))


def _transformers_bases(node: Node, ex: Expressions) -> Iterator[str]:
    """The qualified names of the transformers classes among a class's bases, in order."""
    arglist = node.get_super_arglist()
    bases = [] if arglist is None else arglist.children if arglist.type == "arglist" else [arglist]
    for base in bases:
        if base.type in ("name", "power", "atom_expr"):
            value = ex.eval(base)
            if isinstance(value, Symbol) and value.qualname.startswith("transformers."):
                yield value.qualname


def _model_based(node: Node, ex: Expressions) -> bool:
    """A direct subclass of a transformers model class (`LlamaForCausalLM`, `...Model`)."""
    names = (qualname.rsplit(".", 1)[-1] for qualname in _transformers_bases(node, ex))
    return any("For" in name or name.endswith("Model") for name in names)


def attention_unfilled(node: Node, params: Sequence[Any], ex: Expressions) -> tuple[str, Unknown] | None:
    """The cache parameter of `node`, the `forward` of a direct subclass of a transformers attention class
    (`class MyAttention(Qwen2Attention)`), that the target's decoder layers no longer fill: they pass the cache as
    `past_key_values=` from 4.56.0 (`Target.hook_parameter_gone("attention", "past_key_value")`), so a parameter
    still named `past_key_value` holds its default (None) whatever it is annotated with, and a read of it as a
    cache never runs (lmms-eval's `torch.cat([past_key_value[0], key_states])` under `if past_key_value is not
    None:`). None where the parameter is still filled, or the class is not an attention subclass."""
    param = next((p for p in params[1:] if p.name.value == "past_key_value" and p.star_count == 0), None)
    cls = node.search_ancestor("classdef")
    if param is None or cls is None or node.name.value != "forward" or not _attention_based(cls, ex):
        return None
    gone = ex.s.target.hook_parameter_gone("attention", "past_key_value")
    if gone is None:
        return None
    return "past_key_value", Unknown(f"the parameter `past_key_value`, which transformers' decoder layers no longer "
                                     f"fill from {gone} (they pass `past_key_values=`)")


def _attention_based(node: Node, ex: Expressions) -> bool:
    """A direct subclass of a transformers model's attention class (`LlamaAttention`, `Qwen2SdpaAttention`)."""
    return any(qualname.startswith("transformers.models.") and qualname.endswith("Attention")
               for qualname in _transformers_bases(node, ex))


def cache_is_builtin(test: Node, ex: Expressions) -> bool | None:
    """False for `isinstance(x, tuple)` (builtin types only: `_builtin_types`) where x holds a transformers cache
    (or None) on every path (no cache class derives from them, docs/facts.md), True for `not isinstance(...)` of that: a
    converter's `if isinstance(cache, tuple): return DynamicCache.from_legacy_cache(cache)` is never taken for the
    cache a forward returned, so the helper hands that cache back. None otherwise."""
    kids = test.children if hasattr(test, "children") else []
    if test.type == "not_test":
        inner = cache_is_builtin(kids[1], ex)
        return None if inner is None else not inner
    if test.type not in ("power", "atom_expr") or len(kids) != 2 or kids[0].type != "name" or \
            kids[0].value != "isinstance" or kids[1].type != "trailer" or kids[1].children[0].value != "(":
        return None
    args = call_args(kids[1])
    if len(args) != 2 or any(a.name is not None or a.star for a in args) or args[0].value.type != "name" or \
            not _builtin_types(args[1].value, ex):
        return None
    held = ex.s.state.names.get(args[0].value.value)
    options = [v for v, _ in held.options] if type(held) is Maybe else [held]
    # None (`cache = None` before the first forward, on every path or on some) is no tuple either: guidance's
    # `isinstance(past, tuple)` branch slicing a legacy tuple is dead for a cache the forward handed back, and
    # the tuple it builds never reaches the next forward.
    known = held is not None and all(type(v) is CacheVal or (type(v) is Const and v.value is None) for v in options)
    return False if known else None


def model_is_instance(test: Node, ex: Expressions) -> bool | None:
    """True for `isinstance(x, C)` where x holds a model the code loaded with `C.from_pretrained(...)` (C a
    transformers model class, `Qwen3ForCausalLM`): the code says the test holds (KVzip's per-class generate
    keywords). None otherwise: another class may still be a base of x's, so nothing says the test fails."""
    kids = test.children if hasattr(test, "children") else []
    if test.type not in ("power", "atom_expr") or len(kids) != 2 or kids[0].type != "name" or \
            kids[0].value != "isinstance" or kids[1].type != "trailer" or kids[1].children[0].value != "(":
        return None
    args = call_args(kids[1])
    if len(args) != 2 or any(a.name is not None or a.star for a in args) or not _dotted(args[1].value):
        return None
    cls = ex.eval(args[1].value)
    if type(cls) is not Symbol or not cls.qualname.startswith("transformers."):
        return None
    held = ex.eval(args[0].value)
    obj = ex.s.obj(held) if type(held) is Ref else None
    if isinstance(obj, ModelState) and obj.is_transformers and obj.class_name is not None and \
            obj.class_name == cls.qualname.rsplit(".", 1)[-1]:
        return True
    return None
