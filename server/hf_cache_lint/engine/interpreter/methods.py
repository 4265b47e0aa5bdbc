"""Methods of the objects the interpreter tracks on its heap: a model (`generate`, `save_pretrained`,
`.to(...)`, the forward pass), a GenerationConfig (`update`, `validate`, `save_pretrained`), a dict
(`update`, `pop`, `get`, `setdefault`, `copy`), a user object (its class's method, inlined), a pipeline's
call, a cache's `to_legacy_cache()`, and `.generate(...)` on a receiver the linter cannot see.

A new method of a tracked kind goes in that kind's handler below (`_BY_KIND` maps the heap object's
type to it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts.cache_crop import CacheCrop
from hf_cache_lint.engine.interpreter.arguments import positional
from hf_cache_lint.engine.interpreter.bindings import SELF_RETURNING
from hf_cache_lint.engine.interpreter.expressions import Expressions
from hf_cache_lint.engine.interpreter.forward_caches import forward_facts
from hf_cache_lint.engine.interpreter.functions import UserFunctions
from hf_cache_lint.engine.interpreter.generate_calls import GenerateFacts
from hf_cache_lint.engine.interpreter.loading import Loading
from hf_cache_lint.engine.interpreter.model_subclasses import (
    MAX_DEPTH,
    base_model_name,
    model_of,
)
from hf_cache_lint.engine.interpreter.output_values import output
from hf_cache_lint.engine.interpreter.session import EvArg, Session, site_of
from hf_cache_lint.engine.interpreter.values import (
    NONE,
    UNKNOWN,
    CacheVal,
    ClassDef,
    ConfigState,
    Const,
    DictState,
    Function,
    HeapObj,
    InstanceState,
    ListVal,
    Maybe,
    Method,
    ModelState,
    PipelineState,
    Ref,
    TupleVal,
    Unknown,
    Value,
    list_joined,
    listed,
)
from hf_cache_lint.engine.syntax.nodes import Node, code

# Model methods that return the model itself.
_PASS_THROUGH = {"to", "cuda", "cpu", "eval", "train", "half", "float", "bfloat16", "requires_grad_", "compile",
                 "get_base_model", "merge_and_unload"}

class MethodCall:
    """One method call being evaluated: `owner.name(args)` and where it is written."""

    __slots__ = ("args", "head", "m", "ref", "trailer", "trailers", "whole")

    def __init__(self, m: Method, ref: Ref, args: list[EvArg], trailer: Node, head: Node, trailers: list[Node],
                 whole: object) -> None:
        self.m, self.ref, self.args, self.trailer, self.head, self.trailers, self.whole = \
            m, ref, args, trailer, head, trailers, whole


class TrackedMethods:
    """Method calls on tracked objects. Inputs: the session, the expressions (to merge dicts), the user
    functions (a user object's method is inlined), the loading (what `save_pretrained` writes,
    `update(**kw)`'s setting) and the generate facts (`model.generate(...)` is recorded there)."""

    def __init__(self, session: Session, ex: Expressions, functions: UserFunctions, loading: Loading,
                 facts: GenerateFacts) -> None:
        self.s = session
        self.ex = ex
        self.functions = functions
        self.loading = loading
        self.facts = facts

    def call_method(self, m: Method, args: list[EvArg], trailer: Node, head: Node, trailers: list[Node],
                    whole: object) -> Value:
        uses = self.ex.uses
        if uses.on and trailer in trailers and trailers.index(trailer) > 0:
            attribute = trailers[trailers.index(trailer) - 1]
            if getattr(attribute, "type", None) == "trailer" and attribute.children[0].value == "." \
                    and attribute.children[1].value == m.name:
                i = trailers.index(attribute)
                uses.call(m.owner, m.name, args, attribute, trailer, head, trailers[:i])
        obj = self.s.obj(m.owner)
        if obj is not None:
            assert isinstance(m.owner, Ref)
            handler = _BY_KIND.get(type(obj))
            return handler(self, obj, MethodCall(m, m.owner, args, trailer, head, trailers, whole)) \
                if handler is not None else UNKNOWN
        # A bare unseen name (`lm.generate(...)`, a parameter) may be an instance of this module's own class
        # with a `generate`; an attribute (`self.model.generate(...)`) is what such a wrapper delegates to.
        if isinstance(m.owner, Unknown) and m.name == "generate" and not (self.s.own_generate and len(trailers) == 2):
            self.facts.generate_facts(None, None, args, trailer, head, trailers, whole)
            return output("generate", None, args, site_of(whole, "generate(...)"))
        if isinstance(m.owner, ClassDef) and m.owner.model_base:
            return self._load_subclass(m.owner, m.name, args, whole)
        if m.name == "append" and listed(m.owner):
            return self._append(m.owner, args, head, trailers, trailer)
        if isinstance(m.owner, CacheVal) and m.name == "to_legacy_cache":
            return TupleVal(site_of(whole, "to_legacy_cache()"))
        crop_of = _cache_or_none(m.owner) if m.name == "crop" else None
        if crop_of is not None:
            cache = crop_of
            built = cache.site.span if cache.window and cache.cls == "DynamicCache" and cache.site is not None \
                and cache.site.path is None else None
            self._crop(cache.class_name, args, trailer, head, trailers, whole, cache.window, built)
            return NONE
        return UNKNOWN

    def _append(self, owner: Value, args: list[EvArg], head: Node, trailers: list[Node], trailer: Node) -> Value:
        """`caches.append(x)` on a name of this scope holding a list: the name holds the list with `x` in it
        (values.py `list_joined`: its item stays known only where every item is the same transformers cache). A list
        reached otherwise (an attribute, another alias) keeps what it held: its item is never claimed from it."""
        names = self.s.state.names
        if head.type != "name" or trailers.index(trailer) != 1 or names.get(head.value) is not owner \
                or len(args) != 1 or args[0].arg.name or args[0].arg.star:
            return NONE
        site = next((v.site for v, _ in owner.options if isinstance(v, ListVal)), None) \
            if isinstance(owner, Maybe) else owner.site if isinstance(owner, ListVal) else None
        names[head.value] = list_joined(site, (owner,), (args[0].value,))
        return NONE

    def _load_subclass(self, cls: ClassDef, name: str, args: list[EvArg], whole: object) -> Value:
        """`Chat.from_pretrained(checkpoint, ...)` / `Chat.from_config(config)` of the project's subclass of a
        transformers model: an instance of `Chat` that is the model loaded as its transformers base (the loader
        builds `cls(config)`: the class's `__init__` runs, its parameters beyond the config unknown)."""
        base = base_model_name(cls.model_base)
        model = self.loading.load_model(base, args, checkpoint=name == "from_pretrained", call_span=whole,
                                        decoder_only=base.endswith("ForCausalLM"), loader=f"{cls.name}.{name}")
        ref = self.s.new(self.functions.with_model(InstanceState(cls.name, (), cls.cache_base, cls.own, cls.skips_init,
                                                                 cls.narrow_length), cls, model))
        init = self.functions.method_of(cls.name, "__init__")
        if init is not None:
            self.functions.inline(init, [], ref, whole)
        return ref

    def _crop(self, cache: str, args: list[EvArg], trailer: Node, head: Node, trailers: list[Node], whole: object,
              window: str | None = None, built: Span | None = None) -> None:
        """`receiver.crop(n)` on a transformers cache (`cache`: what it is, for messages), recorded for HFC008."""
        first = positional(args, 0)
        if first is not None and trailer in trailers:
            constant = first.value.value if isinstance(first.value, Const) else None
            receiver = code(head) + "".join(code(t) for t in trailers[:trailers.index(trailer) - 1])
            self.s.record(CacheCrop(site_of(whole, "crop(...)").span, self.s.site(first.arg.node).span,
                                    constant if type(constant) is int else None, receiver,
                                    cache, code(first.arg.node), _statement_indent(head, trailer), window, built))

    def _model(self, obj: HeapObj, c: MethodCall) -> Value:
        assert isinstance(obj, ModelState)
        name = c.m.name
        if name == "generate":
            self.facts.generate_facts(c.ref, None, c.args, c.trailer, c.head, c.trailers, c.whole)
            return output("generate", obj, c.args, site_of(c.whole, "generate(...)"))
        if name in _PASS_THROUGH:
            return c.ref
        if name == "save_pretrained":  # saving the model saves (and validates) its generation config
            self.s.note_validated(obj.gen_config)
            self.loading.remember_save(obj.gen_config, c.args)
            return NONE
        if name == "__call__" and obj.forward is not None:
            return UNKNOWN  # `model.forward = f` on this instance: `__call__` runs the code's `f`
        if name in ("forward", "__call__"):
            assert isinstance(c.whole, Span)
            forward_facts(self.facts, obj, c.args, c.whole)
            self.ex.uses.forward(c.ref, c.args, c.whole, code(c.head) + "".join(code(t) for t in c.trailers[:-1]))
            return output("forward", obj, c.args, site_of(c.whole, "the forward pass"))
        # A member the module set on the model's class (`LlamaForCausalLM.prepare_inputs_for_generation = f`): the
        # call runs that function with the model as `self`, and the arguments this call gives (a forward's cache).
        patched = self.s.patched_models.get((obj.class_name, name)) if obj.class_name else None
        if isinstance(patched, Function):
            return self.functions.inline(patched, c.args, c.ref, c.whole)
        return UNKNOWN

    def _config(self, obj: HeapObj, c: MethodCall) -> Value:
        name = c.m.name
        if name in ("validate", "save_pretrained", "update"):  # each runs validate()
            self.s.note_validated(c.ref)
        if name == "save_pretrained":
            self.loading.remember_save(c.ref, c.args)
            return NONE
        if name == "update":
            assert isinstance(obj, ConfigState)
            self.s.note_ci_argument(c.args)
            s = self.loading.ci_setting(c.args, "model")
            self.s.put(c.ref, replace(obj, ci=s if s is not None else obj.ci).with_keys(
                self.loading.config_keys(c.args, "update")))
        return UNKNOWN

    def _dict(self, obj: HeapObj, c: MethodCall) -> Value:
        assert isinstance(obj, DictState)
        d, ref, name, args = obj, c.ref, c.m.name, c.args
        if name == "update":
            for a in args:
                if a.arg.name:
                    d = d.set(a.arg.name, a.value, self.s.site(a.arg.node))
                else:
                    d = self.ex.merge_into(d, a.value)
            self.s.put(ref, d)
            return NONE
        if name in ("pop", "get", "setdefault"):
            first = positional(args, 0)
            key = first.value.value if first and isinstance(first.value, Const) else None
            if not isinstance(key, str):
                return UNKNOWN
            got = d.get(key)
            if name == "pop":
                self.s.put(ref, d.delete(key))
            elif name == "setdefault" and got is None:
                second = positional(args, 1)
                self.s.put(ref, d.set(key, second.value if second else NONE, self.s.site(first.arg.node)))  # type: ignore[union-attr]
            return got[0] if got else UNKNOWN
        if name == "copy":
            return self.s.new(replace(d))
        return UNKNOWN

    def _instance(self, obj: HeapObj, c: MethodCall) -> Value:
        assert isinstance(obj, InstanceState)
        fn = self.functions.method_of(obj.class_name, c.m.name)
        if fn is None:
            # A method the class inherits from the project's own classes (Parler-TTS's `CacheSetupMixin`, Petals'
            # generation mixin before the model): Python's MRO up to the first base that is not the module's.
            fn = self._mixed_in(obj.class_name, c.m.name)
        if fn is None and c.m.name == "crop" and obj.cache_base and "crop" not in obj.own:
            # The project's own subclass of a transformers cache: `crop` is transformers' (not the subclass's).
            base = obj.cache_base.rpartition(".")[2]
            self._crop(f"`{obj.class_name}` (a subclass of `{base}`)", c.args, c.trailer, c.head, c.trailers, c.whole)
            return NONE
        if fn is None and c.m.name in SELF_RETURNING and (self.functions.torch_module(obj.class_name)
                                                         or model_of(obj) is not None):
            return c.ref  # `Wrapper(model).eval()`: torch's `Module.eval`/`.to`/... return the module itself
        return self.functions.inline(fn, c.args, c.ref, c.whole) if fn else UNKNOWN

    def _mixed_in(self, class_name: str, name: str, depth: int = 0) -> Function | None:
        """The method `name` a class inherits from the module's own classes, found as Python's MRO would before the
        first base that is not one (a transformers model: Petals' `class DistributedLlamaForCausalLM(
        RemoteGenerationMixin, LlamaForCausalLM)` and the mixin's `generate`; a plain class: Parler-TTS's
        `CacheSetupMixin`), None from such a base on (it may define the method itself)."""
        cls = self.s.module_state.names.get(class_name)
        if not isinstance(cls, ClassDef) or cls.node is None or depth > MAX_DEPTH:
            return None
        for base in self.functions.bases(cls.node):
            if not isinstance(base, ClassDef):
                return None  # the transformers model (or another library's class) comes first from here on
            fn = self.functions.method_of(base.name, name) or self._mixed_in(base.name, name, depth + 1)
            if fn is not None:
                return fn
        return None

    def _pipeline(self, obj: HeapObj, c: MethodCall) -> Value:
        assert isinstance(obj, PipelineState)
        if c.m.name == "__call__" and self.facts.pipeline_reaches_generate(obj):
            self.facts.generate_facts(None, c.ref, c.args, c.trailer, c.head, c.trailers, c.whole)
        return UNKNOWN


_BY_KIND: dict[type, Callable[[TrackedMethods, HeapObj, MethodCall], Value]] = {
    ModelState: TrackedMethods._model,
    ConfigState: TrackedMethods._config,
    DictState: TrackedMethods._dict,
    InstanceState: TrackedMethods._instance,
    PipelineState: TrackedMethods._pipeline,
}


def _cache_or_none(value: Value) -> CacheVal | None:
    """The cache `value` holds where a method call on it runs: the cache itself, or a Maybe of transformers caches
    and None (guidance's `self._past_key_values`: None until the first forward), whose None paths raise
    AttributeError at the call anyway, so the call that returns is one on the (first) cache."""
    if isinstance(value, CacheVal):
        return value
    if not isinstance(value, Maybe):
        return None
    present = [v for v, _ in value.options if not (type(v) is Const and v.value is None)]
    return present[0] if present and all(type(v) is CacheVal for v in present) and \
        isinstance(present[0], CacheVal) else None


def _statement_indent(head: Node, trailer: Node) -> str | None:
    """The line's indentation when the chain `head ... trailer` (its last trailer) is a whole expression
    statement alone on its line, else None."""
    chain = head.parent
    parent = getattr(chain, "parent", None)
    if chain is None or chain.children[-1] is not trailer or parent is None or parent.type != "simple_stmt" \
            or len(parent.children) != 2 or parent.children[0] is not chain:
        return None
    indent = head.get_first_leaf().prefix.rsplit("\n", 1)[-1]
    return indent if not indent.strip(" \t") else None
