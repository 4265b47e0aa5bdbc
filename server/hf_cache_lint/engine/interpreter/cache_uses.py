"""Every use of a transformers cache or model object, recorded as a `cache_use` fact (engine/facts/cache_use.py)
by the parts that see the shape: an attribute read (expressions.py) or write (statements.py), a method call
(methods.py), a subscript (expressions.py), iteration (control_flow.py), unpacking (statements.py), `len`
(known.py), a forward pass (calls.py, methods.py).

This is the one answer to "is this a transformers cache (or model)?": the interpreter's value. A `CacheVal` the
code says is a cache (`said`), a transformers model on the heap (not one loaded with its own remote code), or a
name bound only to those on every path (a `Maybe` whose options are all the same one, or None). A project's own
class is an `InstanceState`, never either; a parameter is one only where a caller of the module passes one, or
its annotation names a transformers cache class (functions.py `annotated`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.facts.cache_use import (
    KIND,
    ArgKind,
    CacheOp,
    CacheUse,
    UseArgument,
    model_member_recorded,
)
from hf_cache_lint.engine.interpreter.except_fallbacks import pair
from hf_cache_lint.engine.interpreter.init_members import init_sets, instance_only
from hf_cache_lint.engine.interpreter.none_tests import none_test_at
from hf_cache_lint.engine.interpreter.session import EvArg, Session
from hf_cache_lint.engine.interpreter.values import (
    UNKNOWN,
    CacheVal,
    ClassDef,
    Cond,
    ConfigState,
    Const,
    InstanceState,
    LayerVal,
    Lazy,
    ListVal,
    Maybe,
    ModelState,
    Ref,
    TupleVal,
    Value,
    maybe,
)
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS
from hf_cache_lint.engine.syntax.nodes import Node, code

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.imports import WorkspaceImports


@dataclass(frozen=True)
class Subject:
    """What a receiver is, as recorded: see CacheUse."""

    what: Literal["cache", "model", "config", "layer"]
    cls: str | None
    module: str
    description: str
    layered: bool
    subclass: str | None = None  # the project's own subclass of `cls` the receiver is an instance of
    guard: str | None = None  # the isinstance test that alone says it is a cache (CacheUse.guard)
    guard_at: Position | None = None  # where that test names the class (CacheUse.guard_at)
    narrowed: bool = False  # only that test says it is a cache (CacheUse.narrowed)


class CacheUses:
    """Records the uses; off for a text without the kind's trigger words (its screen says none can occur)."""

    def __init__(self, session: Session, imports: WorkspaceImports | None = None) -> None:
        self.s = session
        self.imports = imports  # the workspace classes the module imports (`_own_subclass_defines`)
        self.on = KIND.said(session.text)
        # True while `x.member += n` reads the member it updates (statements.py): a counter read before it is set.
        self.updating = False

    def subject(self, value: Value, name: str = "") -> Subject | None:
        """The cache or model `value` is, when the code says so; a model only for a cache-related `name`."""
        if not self.on:
            return None
        if type(value) is CacheVal:
            if name and _narrowed_only(value) and self._own_subclass_defines(value, name):
                return None
            return _cache_subject(value) if value.said else None
        if type(value) is ClassDef:
            return _class_subject(value, name) if name else None
        if type(value) is Ref:
            obj = self.s.obj(value)
            if isinstance(obj, InstanceState):
                return _subclass_subject(obj, name)
            if isinstance(obj, ConfigState):
                return _config_subject(obj, name)
            if not model_member_recorded(name):
                return None
            return _model_subject(obj) if isinstance(obj, ModelState) else None
        if type(value) is LayerVal:  # a transformers cache's layer (values.py `cache_layers`)
            return Subject("layer", value.cls, _CU, value.description, False) if name else None
        if type(value) is Maybe:
            subjects = [self.subject(v, name) if not (type(v) is Const and v.value is None) else None
                        for v, _ in value.options]
            found = set(subjects)
            found.discard(None)
            if not all(type(v) in (CacheVal, Ref) or (type(v) is Const and v.value is None)
                       for v, _ in value.options):
                return None
            if len(found) == 1:
                return found.pop()
            return _same_class(subjects, value)
        return None
        return None

    def _own_subclass_defines(self, value: CacheVal, name: str) -> bool:
        """Whether one of the project's own subclasses of the class an `isinstance` test named (`Cache`: any cache
        class) defines `name`: in the module, or imported from the workspace and resolved by the code. The test
        holds for an instance of that subclass too, so where only the test says the receiver is a cache, the code
        does not say the member is transformers' (MagicPiG's `isinstance(past_key_values, Cache)` branch reading
        the `seen_tokens` its own `MagicCache` sets)."""
        for n, held in list(self.s.module_state.names.items()):
            v: Value | None = held
            if type(held) is Lazy:
                if self.imports is None or (held.module, held.level, held.name) not in self.imports.resolved:
                    continue  # never resolved: the code never used it
                v = self.imports.force(held)
            else:
                v = self.s.module_name(n)
            if isinstance(v, ClassDef) and v.cache_base and name in v.own and \
                    (value.cls == "Cache" or v.cache_base.rsplit(".", 1)[-1] == value.cls):
                return True
        return False

    def record(self, who: Subject, op: CacheOp, name: str, receiver: str, at: Span, whole: Span | None = None,
               arguments: tuple[UseArgument, ...] = (), index: str | None = None, targets: int | None = None,
               window: str | None = None, none_test: tuple[str, tuple[int, int]] | None = None,
               paired: str | None = None, listed: bool = False) -> None:
        test, test_at = (None, None) if none_test is None else (none_test[0], Position(*none_test[1]))
        self.s.record(CacheUse(op, name, who.what, who.cls, who.module, who.description, receiver, at, whole,
                               arguments, index, targets, who.layered, window, test, who.subclass,
                               who.guard, paired, who.guard_at, test_at, who.narrowed, listed))

    def constructed(self, cache: CacheVal, at: Span) -> None:
        """A quantized cache class built with a sliding-window model's config (`construct`)."""
        if self.on and cache.window is not None and cache.cls is not None and "Quant" in cache.cls:
            self.record(Subject("cache", cache.cls, cache.module, f"`{cache.cls}`", True), "construct", cache.cls,
                        cache.cls, at, at, window=cache.window)

    # -- the shapes ------------------------------------------------------------------
    def member(self, value: Value, op: CacheOp, trailer: Node, head: Node, before: Sequence[Node]) -> None:
        """`receiver.name` read or written (`trailer` is `.name`; `before`: the trailers between `head` and it)."""
        name = trailer.children[1].value
        who = self.subject(value, name)
        if who is not None and who.what in ("config", "layer") and op == "write":
            who = None  # a plain store on a config or layer (what transformers reads of them is its own)
        if who is None and type(value) is Ref and not (op == "write" and name in SILENT_OWN):
            obj = self.s.obj(value)
            # Public names only: the release table's members are (a private counter's read is `_unset_counter`'s).
            if isinstance(obj, InstanceState) and obj.cache_base and name in obj.own and not name.startswith("_") \
                    and (op == "write" or (op == "read" and self._inlined() and obj.get(name) is None)):
                who = self._instance_only(obj, name, op)
        if who is None and self.updating and op == "read" and name in BASE_COUNTERS and type(value) is Ref:
            obj = self.s.obj(value)
            who = _unset_counter(obj, name, self.s.module_name) if isinstance(obj, InstanceState) else None
        if who is not None:
            self.record(who, op, name, _receiver(head, before), self.s.span(trailer.children[1]),
                        Span(self.s.span(head).start, self.s.span(trailer).end))

    def subclass_member(self, model: Value, class_name: str, trailer: Node, head: Node,
                        before: Sequence[Node]) -> None:
        """`self._supports_cache_class` read on an instance of the project's subclass of a transformers model class
        (`model`: the model it is; expressions.py tells that its classes do not define the member): the model's
        member, whose error names the subclass."""
        name = trailer.children[1].value
        obj = self.s.obj(model) if type(model) is Ref else None
        if not model_member_recorded(name) or not isinstance(obj, ModelState):
            return
        who = _model_subject(obj)
        if who is not None:
            self.record(replace(who, subclass=class_name), "read", name, _receiver(head, before),
                        self.s.span(trailer.children[1]), Span(self.s.span(head).start, self.s.span(trailer).end))

    def call(self, value: Value, name: str, args: list[EvArg], attribute: Node, call: Node, head: Node,
             before: Sequence[Node]) -> None:
        """`receiver.name(args)` (`attribute` the `.name` trailer, `call` the `(...)` one)."""
        who = self.subject(value, name)
        if who is not None:
            # Only the maximum's result is read for a None test (a dynamic cache's: None on 4.4x, -1 from 4.54's
            # `get_max_cache_shape` and 5.13's `get_max_length`), and for the try/except pair that spans releases.
            maximum = name in _MAXIMUM
            self.record(who, "call", name, _receiver(head, before), self.s.span(attribute.children[1]),
                        Span(self.s.span(head).start, self.s.span(call).end), self.arguments(args),
                        none_test=none_test_at(call, self._caller()) if maximum else None,
                        paired=pair(call) if maximum else None)

    def _inlined(self) -> bool:
        """Whether the function running now was inlined at a call (not run uncalled, on parameters it was not
        given: an instance's attributes then say nothing of what ran before)."""
        callers, stack = self.s.callers, self.s.stack
        return bool(callers and stack and callers[-1][0] is stack[-1])

    def _instance_only(self, obj: InstanceState, name: str, op: CacheOp) -> Subject | None:
        """`self.name` on an instance of the project's cache subclass whose classes have `name` only as what a
        method sets on `self` (init_members.py `instance_only`): a store goes through the base's member (a
        property without a setter raises: QuaRot's `self.batch_size = ...` under 5.13's `Cache`); a read before
        the instance has it (its `__init__` never sets it, no method that ran here did) reads the base's
        (llm-compressor's `len(self.key_cache)`, set only in `reset_states`)."""
        who = _subclass_subject(replace(obj, own=obj.own - {name}), name)
        # Only a member the base had at some release: as a property, for a store (a plain attribute's store sets
        # the subclass's own); as anything, for a read.
        if who is None or who.cls is None or not _base_had(who.module, who.cls, name, op == "write"):
            return None
        cls = self.s.module_name(obj.class_name)
        if not isinstance(cls, ClassDef) or not instance_only(cls, name, self.s.module_name):
            return None
        if op == "read" and init_sets(cls, name, self.s.module_name):
            return None
        return who

    def _caller(self) -> Callable[[Node], bool] | None:
        """Whether a call expression is the call that inlined the function running now (None: it runs uncalled,
        any call of it may be the one)."""
        callers, stack = self.s.callers, self.s.stack
        if not callers or not stack or callers[-1][0] is not stack[-1] or not isinstance(callers[-1][1], Span):
            return None
        start = callers[-1][1].start
        return lambda expr: self.s.span(expr).start == start

    def class_call(self, qualname: str, args: list[EvArg], trailers: Sequence[Node], head: Node,
                   whole: Span) -> None:
        """`DynamicCache.from_legacy_cache(...)`: a method called on a transformers cache class (`qualname` the
        method's, `trailers` through the call's)."""
        owner, _, name = qualname.rpartition(".")
        cls = owner.rpartition(".")[2]
        if not (self.on and owner.startswith("transformers.") and cls.endswith("Cache") and cls[:1].isupper()) \
                or len(trailers) < 2:
            return
        attribute = trailers[-2]
        if getattr(attribute, "type", None) != "trailer" or attribute.children[0].value != "." \
                or attribute.children[1].value != name:
            return
        parts = owner.split(".")
        module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
        who = Subject("cache", cls, module, f"the class `{cls}`", cls != "EncoderDecoderCache")
        self.record(who, "call", name, _receiver(head, trailers[:-2]), self.s.span(attribute.children[1]), whole,
                    self.arguments(args))

    def named(self, value: Value, name: str, at: Node, receiver: Node) -> None:
        """`getattr(receiver, "name", ...)`: the member read by name (`at` the string)."""
        who = self.subject(value, name)
        if who is not None:
            where = self.s.span(at)
            self.record(who, "read", name, code(receiver), where, where)

    def subscript(self, value: Value, trailer: Node, head: Node, before: Sequence[Node]) -> None:
        who = self.subject(value)
        if who is None and type(value) is Maybe and self.on:
            who = self.subject(_cache_options(value))
        if who is not None:
            self.record(who, "subscript", "", _receiver(head, before), self.s.span(trailer),
                        Span(self.s.span(head).start, self.s.span(trailer).end), index=code(trailer.children[1]))

    def whole(self, value: Value, op: CacheOp, node: Node, targets: int | None = None,
              item: str | None = None) -> None:
        """The expression `node` itself used: iterated, unpacked, `len`; `item`: the loop variable a loop's body
        unpacks into `targets` names (`for layer in cache: k, v = layer`). A loop over `list(cache)` iterates the
        cache's items (values.py `ListVal.items_of`): recorded as the cache's, `listed`."""
        of = listed_cache(value) if op == "iterate" else None
        listed = of is not None
        who = self.subject(of if of is not None else value)
        if who is not None:
            at = self.s.span(node)
            self.record(who, op, "", code(node), at, at, index=item, targets=targets, listed=listed)

    def iterated(self, value: Value) -> Subject | None:
        """The cache a loop over `value` iterates the items of: `value` itself, or the cache of `list(cache)`."""
        of = listed_cache(value)
        return self.subject(of if of is not None else value)

    def forward(self, model: Value, args: list[EvArg], whole: Span, receiver: str) -> None:
        """A model's forward pass: each cache given under a cache keyword, and the pass itself when one is."""
        if not self.on or not any(a.arg.name in CACHE_KEYWORDS for a in args):
            return
        for a in args:
            if a.arg.name in CACHE_KEYWORDS:
                who = self.subject(a.value)
                if who is not None:
                    at = self.s.span(a.arg.value)
                    self.record(who, "forward", a.arg.name or "", code(a.arg.value), at, whole)
        obj = self.s.obj(model)
        who = _model_subject(obj) if isinstance(obj, ModelState) else None
        if who is not None:
            self.record(who, "forward", "forward", receiver, whole, whole, self.arguments(args))

    def arguments(self, args: list[EvArg]) -> tuple[UseArgument, ...]:
        out = []
        for a in args:
            v = a.value
            kind: ArgKind = "unknown"
            constant: str | int | float | bool | None = None
            if isinstance(v, CacheVal):
                kind = "cache"
            elif isinstance(v, TupleVal):
                kind = "tuple"
            elif isinstance(v, Const) and not isinstance(v.value, complex):
                kind, constant = "constant", v.value
            elif isinstance(v, Ref) and isinstance(self.s.obj(v), ModelState):
                kind = "model"
            out.append(UseArgument(a.arg.name, ("**" if a.arg.star == "**" else a.arg.star) + code(a.arg.value),
                                   kind, constant))
        return tuple(out)


def _cache_options(value: Maybe) -> Value:
    """The options of `value` that are transformers caches (None aside), where its other options are lists or tuples
    the code built (`kv = out.past_key_values`, then `kv = [[k[:, :, n:], v[:, :, n:]] for k, v in kv]` under an if:
    Star Attention's blocks after the first): indexing it fails on the path that kept the cache, whatever the
    lists' paths do: the path that kept it is one no test named (a loop's earlier pass, an `a if c else b`), so no
    later test can be the one that rules it out. UNKNOWN when an option is anything else (a value the linter cannot
    name may be one the code converted), a named test chose the cache, or no option is a cache."""
    kept: list[tuple[Value, Cond | None]] = []
    for v, c in value.options:
        if type(v) is CacheVal and (c is not None or v.cls is not None):
            # A test chose the cache (`if idx > 0: kv = cut(kv)`): a later test may be the same one. A cache of a
            # class the code names (`DynamicCache.from_legacy_cache(p)` in a converter's branch) is not a forward's.
            return UNKNOWN
        if type(v) is CacheVal or (type(v) is Const and v.value is None):
            kept.append((v, c))
        elif type(v) is not TupleVal and (type(v) is not ListVal or v.items_of is not None):
            return UNKNOWN
    if not any(type(v) is CacheVal for v, _ in kept):
        return UNKNOWN
    return maybe(kept)


def listed_cache(value: Value) -> Value | None:
    """The transformers cache `value` is `list(...)` of (values.py `ListVal.items_of`), on every path where it is
    set (None aside: an attribute `__init__` sets to None); None otherwise."""
    if type(value) is ListVal:
        return value.items_of
    if type(value) is not Maybe:
        return None
    found = [v.items_of for v, _ in value.options if type(v) is ListVal]
    if not found or any(f is None for f in found) or len(found) + sum(
            1 for v, _ in value.options if type(v) is Const and v.value is None) != len(value.options):
        return None
    return maybe((f, None) for f in found if f is not None)


def _same_class(subjects: list[Subject | None], value: Maybe) -> Subject | None:
    """A value that is a cache of the same transformers class on every path (None aside), through different objects
    (`kv = EvictCache(...)` on one path, `DynamicCache()` on another; a cache the caller passed, else the project's
    own subclass): that class's, naming the project's subclass where one path builds it (its error names it; the
    other paths' caches lack the member alike). None when a path's object is not a transformers cache for `name`
    (the subclass defines it) or the classes differ."""
    found: list[Subject] = []
    for who, (v, _) in zip(subjects, value.options, strict=True):
        if who is None:
            if type(v) is Const and v.value is None:
                continue
            return None
        found.append(who)
    if not found:
        return None
    if len({(w.what, w.cls, w.module) for w in found}) != 1:
        return _guarded(found)
    chosen = next((w for w in found if w.subclass is not None), found[0])
    # `.layers` only where every path's cache has them (a guard's `Cache` does not say so).
    return replace(chosen, layered=all(w.layered for w in found))


def _guarded(found: list[Subject]) -> Subject | None:
    """A name the code makes a cache on every path, by an `isinstance(x, Cache)` test on one and a transformers
    class it builds on the others (`if not isinstance(past, Cache): past = DynamicCache(...)`): the guard's subject,
    which is as hedged as a guard alone (a `Cache` subclass the caller passes; its members are `Cache`'s unless the
    class defines them). Not for the project's own subclasses (they may define the member) nor for two concrete
    classes (their members differ)."""
    guards = [w for w in found if w.guard is not None and w.cls == "Cache"]
    if not guards or any(w.what != "cache" or w.subclass is not None or w.module != "transformers.cache_utils"
                         for w in found):
        return None
    return replace(guards[0], layered=all(w.layered for w in found))


def _narrowed_only(value: CacheVal) -> bool:
    """Only an `isinstance` test says `value` is a cache (narrowing.py `_cache_class`: made at the class the test
    names, where its guard points), not a cache the code built or a model returned that the test confirmed."""
    site = value.site
    return value.guard is not None and site is not None and value.guard_at == (site.span.start.line,
                                                                                site.span.start.column)


def _cache_subject(value: CacheVal) -> Subject:
    at = Position(*value.guard_at) if value.guard is not None and value.guard_at is not None else None
    return Subject("cache", value.cls, value.module, value.class_name, value.layered, guard=value.guard, guard_at=at,
                   narrowed=_narrowed_only(value))


def _class_subject(cls: ClassDef, name: str) -> Subject | None:
    """The project's own subclass of a transformers cache class itself (`OwnCache.from_legacy_cache(past)`): `name`
    is transformers' class member unless the project's classes on the way define it (ClassDef.own); Python's error
    names the subclass (`type object 'OwnCache' has no attribute ...`)."""
    if not cls.cache_base or name in cls.own:
        return None
    parts = cls.cache_base.split(".")
    base = parts[-1]
    module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
    return Subject("cache", base, module, f"the class `{cls.name}` (a subclass of `{base}`)",
                   base != "EncoderDecoderCache", cls.name)


def _subclass_subject(obj: InstanceState, name: str) -> Subject | None:
    """An instance of the project's own subclass of a transformers cache class: `name` (a member; "": the object
    itself iterated, indexed, unpacked, measured) is transformers' unless the project's classes define it (or
    define the dunders such a use goes through, or `__getattr__`)."""
    if not obj.cache_base or "__getattr__" in obj.own or "__getattribute__" in obj.own:
        return None
    if (name in obj.own) if name else bool(obj.own & _WHOLE):
        return None
    parts = obj.cache_base.split(".")
    cls = parts[-1]
    module = ".".join(parts[:-1]) if len(parts) > 2 else "transformers.cache_utils"
    return Subject("cache", cls, module, f"`{obj.class_name}` (a subclass of `{cls}`)", cls != "EncoderDecoderCache",
                   obj.class_name)


# What the project's cache subclass stores as its own lists (`self.key_cache = []`): the base's layers never read
# them, and its own methods read what it stored (HFC007's silent store is for a transformers cache's).
SILENT_OWN = frozenset({"key_cache", "value_cache"})


# Counters transformers' cache `__init__` set on every instance up to 4.53.3 (`self._seen_tokens = 0`; HFC007
# removed_members.py `_COUNTERS`): a project's subclass may count on the base having set it.
BASE_COUNTERS = frozenset({"_seen_tokens"})


def _unset_counter(obj: InstanceState, name: str, lookup: Callable[[str], Value | None]) -> Subject | None:
    """`self._seen_tokens += n` on an instance of the project's cache subclass whose `__init__` never sets it
    (init_members.py), though another method of the class assigns it (KVzip's `slice`): the `+=` reads it first, so
    before that method runs it reads the base's counter, which transformers set in `__init__` up to 4.53.3 only."""
    if name not in obj.own:
        return None  # the class never sets it: `_subclass_subject` answered
    cls = lookup(obj.class_name)
    if not isinstance(cls, ClassDef) or init_sets(cls, name, lookup):
        return None  # its `__init__` sets it (the instance's attributes do not say: `__init__` may have run elsewhere)
    return _subclass_subject(replace(obj, own=obj.own - {name}), name)


# The methods answering a cache's maximum length (None on 4.4x for a dynamic cache, -1 since: HFC007 max_length.py).
_MAXIMUM = frozenset({"get_max_length", "get_max_cache_shape"})
# What iterating, indexing, unpacking or `len` of an object calls: a subclass that defines one answers itself.
_WHOLE = frozenset({"__iter__", "__getitem__", "__len__"})


_CU = "transformers.cache_utils"
_CONFIGS = "transformers.generation.configuration_utils"
# Fields a model's generation_config.json carries (Whisper's `forced_decoder_ids`, a field up to 4.52.4):
# `GenerationConfig.__init__` sets every json key it does not pop as an attribute, so a loaded model's config still
# has it where the checkpoint saved it.
_CHECKPOINT_FIELDS = frozenset({"forced_decoder_ids"})


@lru_cache(maxsize=1)
def _config_changes() -> frozenset[str]:
    """The members of `GenerationConfig` some release in the table lacks (`return_legacy_cache`, 4.42-4.57.6): a
    use of any other one works on every release, and is not recorded."""
    table = releases.table()
    first, last = table.releases[0], table.releases[-1]
    prefix = f"member:{_CONFIGS}.GenerationConfig."
    changed = set()
    for key in table.facts:  # the keys only: a fact's runs are parsed when read
        if key.startswith(prefix):
            runs = table.facts[key]
            if not (len(runs) == 1 and runs[0].first == first and runs[0].last == last):
                changed.add(key[len(prefix):])
    return frozenset(changed)


@lru_cache(maxsize=1024)
def _base_had(module: str, cls: str, name: str, as_property: bool) -> bool:
    """Whether transformers' `module.cls` had `name` (resolved through its bases) at some tabled release, as a
    property where `as_property`."""
    for r in releases.known_releases():
        found = releases.member(module, cls, name, r)
        if found is not None and (found == "property" or not as_property):
            return True
    return False


def _config_subject(obj: ConfigState, name: str) -> Subject | None:
    """A transformers `GenerationConfig` (built here, a model's `generation_config`): `name` is the class's member
    unless the code gave the config that key (built with it, `update`d, written) or may have (a `**` spread of a
    dict it does not show), or a checkpoint's json carries it."""
    if not name or name not in _config_changes() or name in _CHECKPOINT_FIELDS or obj.open or \
            any(k.name == name for k in obj.keys):
        return None
    return Subject("config", "GenerationConfig", _CONFIGS, "the `GenerationConfig`", False)


def _model_subject(obj: ModelState) -> Subject | None:
    if not obj.is_transformers or obj.remote_code:
        return None
    cls = obj.class_name
    return Subject("model", cls, "transformers", f"`{cls}`" if cls else "a transformers model", True)


def _receiver(head: Node, before: Sequence[Node]) -> str:
    return code(head) + "".join(code(t) for t in before)


__all__ = ["CacheUses", "Subject"]
