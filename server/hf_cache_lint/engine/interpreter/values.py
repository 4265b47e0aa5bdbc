"""The value model: the abstract values the interpreter tracks, and the heap objects `Ref`s point at.

Immutable values (`Const`, `CacheVal`, `TupleVal`, `ListVal`, `Symbol`, `Output`, `Method`, `Partial`, `Function`,
`ClassDef`, `Lazy`, `Unknown`, `Maybe`) are compared by value. Objects that user code mutates through
aliases (models, generation configs, dicts, instances, pipelines) live on a heap addressed by `Ref`; their
states are frozen and replaced on mutation, so a branch copies the state cheaply and a join merges it
field by field. How two values or two heap states meet is written down in state.py.

A new kind of value is added to `Value` (or a new heap object to `HeapObj`) here, with its join rule in
state.py; the fields of it that hold values or refs go into `_WALK` (at the end), the one description of what
a value holds: `children` and `map_children` read it, and through them every traversal (the weighting here,
`state.reachable`, the replay's node collection, the copier of workspace imports). tests/engine/test_value_walk.py
fails on a field that can hold a value and is missing from `_WALK`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, Union

from hf_cache_lint.engine.output.analysis import CiSource, Site


@dataclass(frozen=True)
class Cond:
    """A branch condition as written (`use_static`, `args.static`), and which way it went."""

    text: str
    holds: bool

    def negated(self) -> Cond:
        return Cond(self.text, not self.holds)


@dataclass(frozen=True)
class Unknown:
    """A value the linter cannot see; `reason` names it for messages ("the parameter `cache`")."""

    reason: str | None = None


@dataclass(frozen=True)
class Const:
    value: str | int | float | complex | bool | None
    site: Site | None = None


@dataclass(frozen=True)
class CacheVal:
    """A transformers Cache object (built, deep-copied, or returned by a forward/generate).

    `class_name`: what it is, for messages (a class, or "the cache returned by the forward pass"); `cls`: the
    transformers class when the code says which (None: a model output's cache, `DynamicCache` by default) and
    `module` the transformers module defining it; `said`: the code says it is a cache (False: the
    `past_key_values` of a generate call that does not ask for a dict output, or of a model with its own code);
    `layered`: it has `.layers` of `.keys`/`.values` (not an `EncoderDecoderCache`, nor the cache of a model not
    known to be decoder-only); `window`: the model family, when the code says the cache is built for (or returned
    by) a model with sliding-window layers (`DynamicCache(config=model.config)` of a Gemma 2), else None; `guard`:
    see the field."""

    class_name: str
    site: Site | None = None
    cls: str | None = None
    module: str = "transformers.cache_utils"
    said: bool = True
    layered: bool = True
    window: str | None = None
    # The `isinstance(x, Cache)` test whose branch alone says x is a cache (engine/interpreter/narrowing.py), as
    # written: on that branch the test is no compat probe of the object (engine/syntax/use_scope.py).
    guard: str | None = None
    guard_at: tuple[int, int] | None = None  # where that test names the class (line, column): CacheUse.guard_at


@dataclass(frozen=True)
class TupleVal:
    """A tuple (the legacy cache format when passed as a cache)."""

    site: Site | None = None
    items: tuple[Value, ...] = ()


@dataclass(frozen=True)
class ListVal:
    """A list built in the code (`[...]`, a list comprehension, `list(...)`): no model's forward takes one as the
    cache. Its items are tracked only as one value every item is: `item`, a transformers cache the code put in
    every place it filled (`caches = []`, `caches.append(model(x).past_key_values)`, `[prefix_cache] + caches`),
    so `caches[0]` and `for c in caches` are that cache (TurboRAG's chunk caches), or a heap object every item is
    (`[first, second]`: one of them, a `Maybe`); None: items not known. `empty`:
    the code built it with no item (`[]`) and put none in yet. `items_of`: the list is `list(cache)` of a
    transformers cache (Kangaroo's `model.past_key_values = list(out.past_key_values)`): its items are what iterating
    that cache yields (4.x's `(keys, values)` pairs, 5.x's triples), so a loop over the list unpacks them as a loop
    over the cache would (cache_uses.py `whole`)."""

    site: Site | None = None
    item: Value | None = None
    empty: bool = False
    items_of: Value | None = None


@dataclass(frozen=True)
class Ref:
    """A heap object."""

    id: int


@dataclass(frozen=True)
class Symbol:
    """An imported module or name, by its dotted origin (`transformers.AutoModelForCausalLM`)."""

    qualname: str


@dataclass(frozen=True)
class Output:
    """What a model call returns: `generate` outputs or forward outputs (both carry a cache)."""

    kind: str  # "generate" | "forward"
    site: Site | None = None
    # Its cache is one the code says it has (engine/interpreter/output_values.py `output`): a dict output
    # (`return_dict_in_generate=True` for generate), with `use_cache` not False, of a model without remote code.
    said: bool = False
    layered: bool = False  # the model is known to be decoder-only (CacheVal.layered)
    model_class: str | None = None
    window: str | None = None  # the model's family when it has sliding-window layers (CacheVal.window)
    # What the code stored on it since (`out.past_key_values = legacy`, `out["past_key_values"] = legacy`): a
    # ModelOutput's member is a plain attribute, a later read gets the value stored (output_values.py `stored`).
    members: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class Method:
    """`obj.name` bound, e.g. `gen = model.generate`."""

    owner: Value
    name: str


@dataclass(frozen=True)
class Partial:
    """`functools.partial(func, **kw)`: keywords as a dict Ref."""

    func: Value
    kwargs: Ref | None


@dataclass(frozen=True)
class Function:
    """A user function or method (parso funcdef node), the object it is bound to (`types.MethodType`), and
    for a function defined inside another one the names it captures from there (`closure`: name -> value;
    interpreter/functions.py decides which)."""

    node: Any = field(compare=False, hash=False)
    qualname: str = ""
    owner: Ref | None = None
    closure: tuple[tuple[str, Value], ...] = ()
    first: ClassDef | None = None  # a classmethod read off its class: the class its first parameter gets


@dataclass(frozen=True)
class ClassDef:
    node: Any = field(compare=False, hash=False)
    name: str = ""
    # A subclass of a transformers cache class (directly or through the module's own classes): that class's
    # qualified name, and the members the project's classes on the way define themselves (methods, class-level
    # names, `self.x = ...`); every other member it has is transformers' (functions.py `cache_base`).
    cache_base: str = ""
    own: frozenset[str] = frozenset()
    # Of such a subclass: the project's `__init__` (the first on the way) never calls a base `__init__`, so what
    # transformers' `Cache.__init__` sets (`layers`) is never set (functions.py `cache_base`).
    skips_init: bool = False
    # Of such a subclass: the project's `get_seq_length` (the first on the way) takes no `layer_idx` keyword.
    narrow_length: bool = False
    # A subclass of a transformers model class (directly or through the module's own classes): that class's
    # qualified name; its instances are that model too (model_subclasses.py).
    model_base: str = ""


@dataclass(frozen=True)
class Lazy:
    """`from module import name` of a workspace module, resolved only when its value matters."""

    module: str
    level: int
    name: str
    qualname: str


@dataclass(frozen=True)
class Maybe:
    """A value that differs by path: each option with the condition under which it holds (None: on some
    path the linter cannot name). Built by joins (state.py) and `a if c else b`; never nested (`maybe()`
    flattens). Readers decide what it means for them: a cache argument takes its first option that is not
    None on a live path, None on the others making it conditional (generate_calls.py `kind_of`); an
    attribute of it is known only when every option gives the same (expressions.py `attribute`); a call
    of it calls its first option that is not Unknown, or, when its live options are different callables
    (a generate replacement on some paths, state.py) with conditions, each on a path of its own (calls.py
    `_call_options`); `**` of it sets each key under the
    condition of the options that hold it (expressions.py `_merge_options`); a subscript of it is unknown, but a
    string key of dicts on every option (what that key holds in each: expressions.py `subscript`, and an item set
    sets it in each: statements.py `set_item`); unpacking tuples of one length on every option gives each name what
    its place holds on each (statements.py `unpacked_options`).
    """

    options: tuple[tuple[Value, Cond | None], ...]


@dataclass(frozen=True)
class LayerVal:
    """A layer of a transformers cache the code says it has, whose class the cache's says (`cache.layers[i]`, `for
    layer in cache.layers` of a `StaticCache`: a `StaticLayer`; expressions.py `cache_layers`): `cls` the layer
    class (in `transformers.cache_utils`), `description` what the code says it is, for messages."""

    cls: str
    description: str


Value = Union[Unknown, Const, CacheVal, TupleVal, ListVal, Ref, Symbol, Output, Method, Partial, Function, ClassDef,
              Maybe, Lazy, LayerVal]

# The layer class a transformers cache class builds its `layers` of (4.54.0 on: `StaticCache` of `StaticLayer`s,
# `DynamicCache` of `DynamicLayer`s) where the model has no sliding-window layers (then some are the sliding
# subclasses, with members of their own).
CACHE_LAYERS = {"StaticCache": "StaticLayer", "DynamicCache": "DynamicLayer"}


def cache_layers(cls: str | None, description: str) -> ListVal | None:
    """`cache.layers` of a transformers cache of class `cls`: a list whose every item is a `LayerVal`, where the
    layer class is known (CACHE_LAYERS); None otherwise."""
    layer = CACHE_LAYERS.get(cls or "")
    if layer is None:
        return None
    return ListVal(None, LayerVal(layer, f"a layer of {description} (a `{layer}`)"))

UNKNOWN = Unknown()
NONE = Const(None)

# Size bounds on values (the per-file budget's memory side). Joins and calls combine values; without a
# bound, `p = helper(p, q)` repeated doubles a value each time (2^n options after n calls), and loops
# with `try` joined the same options again and again. Past a bound a value widens (to fewer options or
# unknown items), never multiplies.
MAX_OPTIONS = 16  # options of one Maybe, after flattening and removing duplicates
MAX_TUPLE_ITEMS = 64  # items of a tuple tracked one by one (a longer literal keeps its length only)
MAX_WEIGHT = 256  # values one value is made of (tuples of tuples, options of options)
MANY_VALUES = Unknown("one of many values")


def maybe(options: Iterable[tuple[Value, Cond | None]]) -> Value:
    """A Maybe of `options`, flat (a nested Maybe's options are lifted, keeping their own condition, else
    the outer one), without repeats, and at most MAX_OPTIONS long: past that the first options are kept
    and one unknown option stands for the rest. One option left: that value itself."""
    seen: dict[tuple[Value, Cond | None], None] = {}
    widened = False
    for v, c in options:
        inner = v.options if isinstance(v, Maybe) else ((v, c),)
        for iv, ic in inner:
            if isinstance(iv, _COMPOUND):
                iv = bounded(iv)
            key = (iv, ic if ic is not None else c)
            if key in seen:
                continue
            if len(seen) >= MAX_OPTIONS - 1:
                widened = True
                break
            seen[key] = None
        if widened:
            break
    out = tuple(seen)
    if widened:
        out = (*out, (MANY_VALUES, None))
    if len(out) == 1 and out[0][1] is None:
        return out[0][0]
    return Maybe(out)


def tuple_val(site: Site | None, items: Iterable[Value] = ()) -> TupleVal:
    """A TupleVal of at most MAX_TUPLE_ITEMS bounded items (a longer one keeps no items: unknown contents)."""
    kept = tuple(items)
    if len(kept) > MAX_TUPLE_ITEMS:
        return TupleVal(site)
    return TupleVal(site, tuple(bounded(v) if isinstance(v, _COMPOUND) else v for v in kept))


def bounded(v: Value) -> Value:
    """`v`, or an unknown value when it is made of more than MAX_WEIGHT values (nested tuples, options)."""
    return v if _weight(v, MAX_WEIGHT) <= MAX_WEIGHT else MANY_VALUES


def _weight(v: Value, limit: int) -> int:
    """How many values `v` is made of, counting stops a little past `limit` (so the cost is bounded too)."""
    total = 0
    todo = [v]
    while todo and total <= limit:
        x = todo.pop()
        total += 1
        if type(x) in _WALK:
            todo.extend(children(x))
    return total


_COMPOUND = (TupleVal, Maybe, Method, Partial)


@dataclass(frozen=True)
class Setting:
    """A `cache_implementation` value held by a config: the string, where set, under which condition."""

    value: str | None
    site: Site | None = None
    cond: Cond | None = None
    via: CiSource = "model"  # how it got there, for messages: "model", "checkpoint", "hub-default", ...
    unknown: str | None = None  # set to a reason when the value is not a constant


@dataclass(frozen=True)
class ModelState:
    class_name: str | None = None
    checkpoint: str | None = None
    gen_config: Ref | None = None
    is_transformers: bool = True
    wrapper: str | None = None
    encoder_decoder: bool = False
    loaded_at: Site | None = None
    # `model.generate = <replacement>` (functools.partial, a function, types.MethodType): later
    # `model.generate(...)` calls go through it; the original stays reachable as `Method(model, "generate")`.
    generate: Value | None = None
    # Other attributes that hold the original generate (`model._old_generate = model.generate`), or a cache the
    # code parked on the model (`model._fschat_pkv = out.past_key_values`).
    aliases: tuple[tuple[str, Value], ...] = ()
    # Loaded with `trust_remote_code=` (not False): its own code may return its own cache, or legacy tuples.
    remote_code: bool = False
    # Loaded as a decoder-only model (`...ForCausalLM`): its cache is layered (`.layers` of keys and values).
    decoder_only: bool = False
    # `model.forward = f`, `setattr(model, "forward", f)` on this instance (Olive's export wrapper converting legacy
    # pasts first), on some path to here: calling the model runs the code's function, not transformers' forward,
    # so nothing is claimed of what the model's forward does with its arguments there.
    forward: Value | None = None


# How a key reached a GenerationConfig: given when it was built (`GenerationConfig(...)`, `from_dict`,
# `from_pretrained(path, **kw)`: the constructor sees it), passed to `update(...)` (which sets only the fields the
# config has) or written as an attribute (`config.k = v`).
KeyHow = Literal["built", "update", "attribute"]


@dataclass(frozen=True)
class ConfigKey:
    """One keyword a GenerationConfig was given: its name, where it was set, whether its value is falsy (None,
    False, 0), the condition of the paths that set it (None: every path) and how it got there."""

    name: str
    site: Site
    falsy: bool
    cond: Cond | None = None
    how: KeyHow = "built"


@dataclass(frozen=True)
class ConfigState:
    """A GenerationConfig; `ci` None means the field is unset (None), which inherits the model's.
    `keys`: the keywords it was built with (written, or keys of a `**dict`), then given by `update(...)` or
    attribute writes, so generate's rules can check the ones a release refuses or ignores. No value is held:
    nothing to walk."""

    ci: Setting | None = None
    keys: tuple[ConfigKey, ...] = ()
    # Built with a `**` spread of a dict the code does not show (its keys unknown): `__init__` sets every key it
    # does not pop as an attribute, so the config may have any member (cache_uses.py `_config_subject`).
    open: bool = False

    def with_keys(self, keys: tuple[ConfigKey, ...]) -> ConfigState:
        """This config after `keys` are given to it (a name given again replaces the earlier one)."""
        if not keys:
            return self
        names = {k.name for k in keys}
        return replace(self, keys=(*(k for k in self.keys if k.name not in names), *keys))


# Keys one dict tracks one by one; past this, new keys are not tracked and the dict is opaque (holds keys
# the linter cannot see), except the keys generate's cache handling reads, which stay tracked.
MAX_DICT_KEYS = 1000
ALWAYS_TRACKED = frozenset({"past_key_values", "cache_params", "cache", "cache_implementation", "generation_config",
                            "generate_kwargs", "use_cache"})
Entry = tuple[str, Value, Site | None, Cond | None]


@dataclass(frozen=True)
class DictState:
    entries: tuple[Entry, ...] = ()
    opaque: bool = False  # holds keys the linter cannot see
    # key -> position in `entries`, shared with the states derived from this one by appending (it may hold
    # their keys too: a position is trusted only when `entries` has that key there). Lookups and adding a
    # key are O(1) this way instead of a scan and a copy of every entry.
    index: dict[str, int] | None = field(default=None, compare=False, repr=False)
    # What every key the code cannot see holds, where one comprehension builds every value as the same
    # transformers cache (Higgs Audio's `{n: StaticCache(..., max_cache_len=n) for n in lengths}`): expressions.py
    # `subscript` answers it for a key it does not know. Dropped by any change (`set`, `delete`: new states).
    every: Value | None = None

    def _pos(self, key: str) -> int | None:
        entries = self.entries
        if len(entries) <= 8:
            for i, e in enumerate(entries):
                if e[0] == key:
                    return i
            return None
        index = self.index
        if index is None:
            index = {e[0]: i for i, e in enumerate(entries)}
            object.__setattr__(self, "index", index)
        p = index.get(key)
        return p if p is not None and p < len(entries) and entries[p][0] == key else None

    def get(self, key: str) -> tuple[Value, Site | None, Cond | None] | None:
        p = self._pos(key)
        if p is None:
            return None
        _, v, s, c = self.entries[p]
        return v, s, c

    def set(self, key: str, value: Value, site: Site | None, cond: Cond | None = None) -> DictState:
        entries = self.entries
        entry = (key, value, site, cond)
        p = self._pos(key)
        if p is None:
            if len(entries) >= MAX_DICT_KEYS and key not in ALWAYS_TRACKED:
                return DictState(entries, True, self.index)
            index = self.index
            if index is not None:
                if key in index:  # another state derived from this one put the key elsewhere
                    index = dict(index)
                index[key] = len(entries)
            return DictState((*entries, entry), self.opaque, index)
        if p == len(entries) - 1:  # the last key again: positions unchanged
            return DictState((*entries[:p], entry), self.opaque, self.index)
        return DictState((*entries[:p], *entries[p + 1:], entry), self.opaque)

    def delete(self, key: str) -> DictState:
        p = self._pos(key)
        if p is None:
            return self
        return DictState((*self.entries[:p], *self.entries[p + 1:]), self.opaque)

    @staticmethod
    def build(items: Iterable[Entry], opaque: bool = False) -> DictState:
        """A dict of `items` in order (a later repeat of a key replaces it and moves it last), as `set`
        one by one would build it, in one pass."""
        out: dict[str, Entry] = {}
        for e in items:
            if e[0] in out:
                del out[e[0]]
            elif len(out) >= MAX_DICT_KEYS and e[0] not in ALWAYS_TRACKED:
                opaque = True
                continue
            out[e[0]] = e
        return DictState(tuple(out.values()), opaque)


@dataclass(frozen=True)
class InstanceState:
    """A user object (e.g. `self`): its attributes (of an instance of a transformers model subclass, the model it is
    under a reserved name: model_subclasses.py `MODEL_ATTR`)."""

    class_name: str
    attrs: tuple[tuple[str, Value], ...] = ()
    cache_base: str = ""  # its class's (ClassDef): a subclass of this transformers cache class
    own: frozenset[str] = frozenset()
    skips_init: bool = False  # its class's (ClassDef)
    narrow_length: bool = False  # its class's (ClassDef)

    def get(self, name: str) -> Value | None:
        for k, v in self.attrs:
            if k == name:
                return v
        return None

    def set(self, name: str, value: Value) -> InstanceState:
        attrs = self.attrs
        for k, _ in attrs:
            if k == name:
                return InstanceState(self.class_name, (*(a for a in attrs if a[0] != name), (name, value)),
                                     self.cache_base, self.own, self.skips_init, self.narrow_length)
        # A new attribute (most of an `__init__`): appended, without a filtering pass over the others.
        return InstanceState(self.class_name, (*attrs, (name, value)), self.cache_base, self.own, self.skips_init,
                             self.narrow_length)


@dataclass(frozen=True)
class PipelineState:
    model: Ref | None = None
    task: str | None = None
    ci: Setting | None = None


HeapObj = Union[ModelState, ConfigState, DictState, InstanceState, PipelineState]


# The one description of what a value or heap object holds: for each type, its fields that hold values or
# refs, with their shape: one value (or None), a tuple of values, a tuple of pairs whose first item is the
# value (`Maybe.options`), a tuple of tuples whose second item is (attributes, closures, dict entries).
_ONE, _ITEMS, _FIRST, _SECOND = range(4)
_WALK: dict[type, tuple[tuple[str, int], ...]] = {
    TupleVal: (("items", _ITEMS),),
    ListVal: (("item", _ONE), ("items_of", _ONE)),
    Maybe: (("options", _FIRST),),
    Output: (("members", _SECOND),),
    Method: (("owner", _ONE),),
    Partial: (("func", _ONE), ("kwargs", _ONE)),
    Function: (("owner", _ONE), ("closure", _SECOND)),
    ModelState: (("gen_config", _ONE), ("generate", _ONE), ("aliases", _SECOND), ("forward", _ONE)),
    PipelineState: (("model", _ONE),),
    DictState: (("entries", _SECOND), ("every", _ONE)),
    InstanceState: (("attrs", _SECOND),),
}

_T = TypeVar("_T")


def children(x: object) -> Sequence[Value]:
    """The values (refs among them, not followed) that the value or heap object `x` holds directly."""
    fields = _WALK.get(type(x))
    if fields is None:
        return ()
    out: list[Value] = []
    for name, shape in fields:
        f = getattr(x, name)
        if shape == _ONE:
            if f is not None:
                out.append(f)
        elif shape == _ITEMS:
            out.extend(f)
        elif shape == _FIRST:
            out.extend(p[0] for p in f)
        else:
            out.extend(p[1] for p in f)
    return out


def map_children(x: _T, f: Callable[[Value], Value]) -> _T:
    """`x` with each value it holds directly (as `children` lists them) replaced by `f` of it."""
    fields = _WALK.get(type(x))
    if fields is None:
        return x
    changes: dict[str, object] = {}
    for name, shape in fields:
        v = getattr(x, name)
        if shape == _ONE:
            changes[name] = f(v) if v is not None else None
        elif shape == _ITEMS:
            changes[name] = tuple(f(i) for i in v)
        elif shape == _FIRST:
            changes[name] = tuple((f(p[0]), *p[1:]) for p in v)
        else:
            changes[name] = tuple((p[0], f(p[1]), *p[2:]) for p in v)
    if isinstance(x, DictState):  # a new entries tuple: the shared key index does not carry over
        return DictState(changes["entries"], x.opaque, every=changes["every"])  # type: ignore[arg-type, return-value]
    return replace(x, **changes)  # type: ignore[type-var]


def list_item(value: Value) -> Value | None:
    """The transformers cache every item of the list `value` is (`ListVal.item`; a `Maybe` of lists on paths that
    met: the items of every one that holds any), None when an item is not known to be one or `value` is not a
    list."""
    if type(value) is ListVal:
        return value.item
    if not isinstance(value, Maybe) or not listed(value):
        return None
    return _items(v for v, _ in value.options)


def listed(value: Value) -> bool:
    """`value` is a list the code built (on every path)."""
    return type(value) is ListVal or (isinstance(value, Maybe) and all(type(v) is ListVal for v, _ in value.options))


def list_joined(site: Site | None, lists: Iterable[Value], added: Iterable[Value] = ()) -> ListVal:
    """A list holding the items of `lists` (each a list, or a `Maybe` of lists; anything else: items not known)
    and the values `added` (`[a, b]`, `caches.append(c)`, `kept + new`): its item stays known only where every
    item is a transformers cache (each its own object: a `Maybe` of them, as `out.past_key_values` of two forward
    passes is); with no item at all it is empty."""
    items: list[Value] = []
    for value in lists:
        for v, _ in value.options if isinstance(value, Maybe) else ((value, None),):
            if type(v) is not ListVal:
                return ListVal(site)
            if not v.empty:
                if v.item is None:
                    return ListVal(site)
                items.append(v.item)
    items.extend(added)
    if not items:
        return ListVal(site, None, True)
    return ListVal(site, _items(items))


def _items(items: Iterable[Value | None]) -> Value | None:
    """One value for `items` that are all transformers caches, or all heap objects (`[first, second]` of the
    project's batches, TGI's `concatenate(batches)`: a loop over them stores into and reads each one), as the one or
    a `Maybe` of them in order; None otherwise (a mix, or anything else)."""
    found: list[tuple[Value, Cond | None]] = []
    for item in items:
        for v, _ in item.options if isinstance(item, Maybe) else ((item, None),):
            if type(v) is not CacheVal and type(v) is not Ref:
                return None
            found.append((v, None))
    if len({type(v) for v, _ in found}) > 1:
        return None
    if not found:
        return None
    got = maybe(found)
    return got if type(got) is CacheVal or (isinstance(got, Maybe) and len(got.options) < MAX_OPTIONS) else None


def falsy(value: Value) -> bool:
    """A constant None, False or 0: asks for nothing (no legacy cache), whatever the key."""
    return isinstance(value, Const) and not value.value
