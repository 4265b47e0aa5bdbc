"""The interpreter's per-path state: local names, the heap, the path's conditions; and the join of two
paths where they meet (after an `if`, a `try`, a function's return paths, a loop's passes).

Join rules, by what meets (`a`, `b`: the two paths; `ca`, `cb`: the conditions that led into each, None
when the paths are not a condition's two sides, e.g. a `try` body and its `except`):

- A dead path (after `return`, `raise`, `break`) contributes nothing: the other path's state is taken.
- A name, an attribute of a user object (InstanceState) and a dict entry's value are *values*: equal
  values stay as they are; two different values — of the same kind or of different kinds (a `Const` and a
  `CacheVal`, a `Ref` and an `Unknown`) — become one `Maybe` holding each with its condition
  (`_merge_value`); a `Maybe` meeting anything contributes its own options, each keeping its condition.
  A name bound on one path only becomes a one-option `Maybe` under that path's condition (the value
  itself when that condition is None). No kind is widened to another: readers decide what a `Maybe`
  means (values.py, `Maybe`). Past MAX_OPTIONS options one unknown option stands for the rest.
- Heap objects meet by id (`_merge_obj`). Two objects of different kinds under one id keep the first
  path's object (a guard: an id is never given to another kind); so do two different ModelStates for their
  aliases, wrapper and config ref (the first path's win).
  - ModelState's `generate` replacement (`model.generate = functools.partial(model.generate, ...)`,
    `types.MethodType(...)`, a function, a decorator over it) meets as a value when the paths are a
    condition's two sides: the same replacement on both stays unconditional; a replacement on one path
    only becomes a `Maybe` of it under that path's condition and the original `Method(model, "generate")`
    under the other's; two different replacements, a `Maybe` of both, each under its condition. A call of
    that `Maybe` calls each option on its own path (calls.py `CallDispatch._call_options`), so what a
    replacement carries in holds only under its condition. Without conditions (a `try` and its handlers,
    a function's returns) the first path's replacement is kept, as before.
  - ModelState's `forward` replacement (`model.forward = f`, `setattr(model, "forward", f)`): kept where either
    path made one (the first path's if both did): a call of the model is then not said to run transformers'
    forward.
  - ConfigState / PipelineState: their `cache_implementation` Settings meet by `merge_setting`: a
    string value beats none (unset, None or an unknown value) and carries the condition of the path that
    set it; two different strings keep the first path's, under its condition. A config's keys: those of
    both, a key given on one path only under that path's condition (as a dict's entry).
  - DictState: the keys of both (the first path's order, then the second's new keys); a key on one path
    only keeps its entry under that path's condition; a key with different values on both holds their
    `Maybe` (each option under its path's condition, the entry itself unconditioned); opaque if either is.
  - InstanceState: each attribute as a value (above).
- The joined path keeps the conditions from before the fork (`base_path`); the heap is shared copy-on-write
  (`Heap`), so only what either path changed is visited.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from hf_cache_lint.engine.interpreter.values import (
    Cond,
    ConfigKey,
    ConfigState,
    DictState,
    HeapObj,
    InstanceState,
    Maybe,
    Method,
    ModelState,
    PipelineState,
    Ref,
    Setting,
    Value,
    children,
    maybe,
)

MAX_PATH = 32


@dataclass
class Meter:
    """The work one analysis spends on states: entries copied by forks and visited by joins (a statement
    costs one step, but a fork or join costs as much as the state is large)."""

    work: int = 0
    charges: int = 0  # how many times work was added (interpreter/replay.py bounds what a replay changes by it)


class Heap:
    """A path's heap objects by id, copied on write: a fork shares the objects every path has (`base`,
    never changed once shared) and copies only what this path changed since (`own`). Forking a path that
    holds a 40,000-entry table no longer copies 40,000 entries, and two paths forked from one state meet
    by merging only what either of them changed."""

    __slots__ = ("base", "own")

    def __init__(self, base: dict[int, HeapObj] | None = None, own: dict[int, HeapObj] | None = None) -> None:
        self.base: dict[int, HeapObj] = base if base is not None else {}
        self.own: dict[int, HeapObj] = own if own is not None else {}

    def get(self, i: int) -> HeapObj | None:
        got = self.own.get(i)
        return got if got is not None else self.base.get(i)

    def __setitem__(self, i: int, obj: HeapObj) -> None:
        self.own[i] = obj

    def __len__(self) -> int:
        return len(self.base) + len(self.own)

    def fork(self) -> Heap:
        """A copy to change on another path; what it costs (entries copied) is len(self.own) afterwards."""
        if len(self.own) > 32 + 2 * math.isqrt(len(self.base)):
            # Fold what this path changed into a new shared base (paths forked earlier keep the old one):
            # a copy of the whole heap once every ~sqrt(size) writes instead of a growing copy at every
            # fork, so a fork or a write costs about sqrt(heap size) entries, not the heap size.
            self.base = {**self.base, **self.own}
            self.own = {}
        return Heap(self.base, dict(self.own))

    def as_dict(self) -> dict[int, HeapObj]:
        return {**self.base, **self.own}


@dataclass
class State:
    """Mutable on purpose: one State per path; `fork()` before a branch."""

    names: dict[str, Value] = field(default_factory=dict)
    heap: Heap = field(default_factory=Heap)
    path: tuple[Cond, ...] = ()
    dead: bool = False
    meter: Meter | None = field(default=None, compare=False, repr=False)

    def fork(self, cond: Cond | None = None) -> State:
        # A path remembers its first MAX_PATH conditions (a long `elif` chain adds one per branch; copying
        # an ever longer tuple at every fork was quadratic). Forgetting one only leaves it undecided.
        path = (*self.path, cond) if cond is not None and len(self.path) < MAX_PATH else self.path
        heap = self.heap.fork()
        if self.meter is not None:
            self.meter.work += len(self.names) + len(heap.own)
            self.meter.charges += 1
        return State(dict(self.names), heap, path, self.dead, self.meter)

    def decides(self, cond: Cond) -> bool | None:
        """Whether this path already fixes `cond` (True/False), else None."""
        for c in self.path:
            if c.text == cond.text:
                return c.holds == cond.holds
        return None


def reachable(heap: Heap, roots: Iterable[Value]) -> dict[int, HeapObj]:
    """The heap objects that `roots` reach (through everything a value or heap object holds: values.py
    `children`)."""
    out: dict[int, HeapObj] = {}
    todo: list[Value] = list(roots)
    while todo:
        v = todo.pop()
        if isinstance(v, Ref):
            if v.id in out:
                continue
            obj = heap.get(v.id)
            if obj is None:
                continue
            out[v.id] = obj
            todo.extend(children(obj))
        else:
            todo.extend(children(v))
    return out


def _with_cond(s: Setting | None, cond: Cond | None) -> Setting | None:
    if s is None or cond is None or s.cond is not None:
        return s
    return replace(s, cond=cond)


def merge_setting(a: Setting | None, b: Setting | None, ca: Cond | None, cb: Cond | None) -> Setting | None:
    """Two `cache_implementation` settings meeting: a set value wins over none, under its path's condition;
    of two different set values the first path's is kept (under its condition)."""
    if a == b:
        return a
    if a is None or a.value is None:
        return _with_cond(b, cb) if b is not None and b.value is not None else a or b
    if b is None or b.value is None:
        return _with_cond(a, ca)
    return _with_cond(a, ca)


def _merge_keys(a: tuple[ConfigKey, ...], b: tuple[ConfigKey, ...], ca: Cond | None,
                cb: Cond | None) -> tuple[ConfigKey, ...]:
    """A config's keys where two paths meet: a key both paths gave (the same way) stays as it is; a key given on
    one path only is kept under that path's condition (as a dict's entry is)."""
    if a == b:
        return a
    out = [k if k in b else replace(k, cond=k.cond or ca) for k in a]
    out.extend(replace(k, cond=k.cond or cb) for k in b if k not in a)
    return tuple(out)


def _merge_value(a: Value | None, b: Value | None, ca: Cond | None, cb: Cond | None) -> Value | None:
    """Two values meeting (None: unbound on that path): equal stays, anything else is a `Maybe` of both."""
    if a == b:
        return a
    options: list[tuple[Value, Cond | None]] = []
    for v, c in ((a, ca), (b, cb)):
        if v is None:
            continue
        if isinstance(v, Maybe):
            options.extend(v.options)
        else:
            options.append((v, c))
    # maybe() drops repeated options: two paths that both carry the same earlier options (a loop's second
    # pass, the branches of a try) no longer double them at every join.
    return maybe(options) if options else None


def _merge_obj(i: int, a: HeapObj, b: HeapObj, ca: Cond | None, cb: Cond | None) -> HeapObj:
    """Two states of heap object `i` meeting (the rules in the module docstring)."""
    if a == b or type(a) is not type(b):
        return a
    if isinstance(a, ModelState) and isinstance(b, ModelState):
        if a.forward is None and b.forward is not None:
            a = replace(a, forward=b.forward)  # replaced on one path: transformers' forward is not said to run
        if a.generate == b.generate or (ca is None and cb is None):
            return a
        original = Method(Ref(i), "generate")
        generate = _merge_value(a.generate or original, b.generate or original, ca, cb)
        return replace(a, generate=generate)
    if isinstance(a, ConfigState) and isinstance(b, ConfigState):
        return ConfigState(merge_setting(a.ci, b.ci, ca, cb), _merge_keys(a.keys, b.keys, ca, cb))
    if isinstance(a, PipelineState) and isinstance(b, PipelineState):
        return replace(a, ci=merge_setting(a.ci, b.ci, ca, cb))
    if isinstance(a, DictState) and isinstance(b, DictState):
        keys = [k for k, *_ in a.entries] + [k for k, *_ in b.entries if a.get(k) is None]
        merged = DictState(opaque=a.opaque or b.opaque)
        for k in keys:
            ea, eb = a.get(k), b.get(k)
            if ea == eb and ea is not None:
                merged = merged.set(k, ea[0], ea[1], ea[2])
            elif ea is not None and eb is None:
                merged = merged.set(k, ea[0], ea[1], ea[2] or ca)
            elif eb is not None and ea is None:
                merged = merged.set(k, eb[0], eb[1], eb[2] or cb)
            elif ea is not None and eb is not None:
                v = _merge_value(ea[0], eb[0], ca, cb)
                merged = merged.set(k, v if v is not None else ea[0], ea[1] or eb[1])
        return merged
    if isinstance(a, InstanceState) and isinstance(b, InstanceState):
        out = a
        for k in {k for k, _ in a.attrs} | {k for k, _ in b.attrs}:
            v = _merge_value(a.get(k), b.get(k), ca, cb)
            if v is not None:
                out = out.set(k, v)
        return out
    return a


def join(a: State, b: State, ca: Cond | None, cb: Cond | None, base_path: tuple[Cond, ...]) -> State:
    """The state after two paths meet; `ca`/`cb` are the conditions that led into each."""
    meter = a.meter or b.meter
    if a.dead and b.dead:
        return State(a.names, a.heap, base_path, True, meter)
    if a.dead:
        return State(b.names, b.heap, base_path, False, meter)
    if b.dead:
        return State(a.names, a.heap, base_path, False, meter)
    names: dict[str, Value] = {}
    an, bn = a.names, b.names
    for k, va in an.items():
        vb = bn.get(k)
        if va is vb:  # a fork copies the names: most are one object on both paths
            names[k] = va
            continue
        v = _merge_value(va, vb, ca, cb)
        if v is not None:
            names[k] = v
    for k, vb in bn.items():
        if k not in an:  # bound on the second path only
            v = _merge_value(None, vb, ca, cb)
            if v is not None:
                names[k] = v
    if a.heap.base is b.heap.base:  # forked from one state: only what either path changed can differ
        base, ids = a.heap.base, a.heap.own.keys() | b.heap.own.keys()
    else:
        base, ids = {}, a.heap.as_dict().keys() | b.heap.as_dict().keys()
    if meter is not None:
        meter.work += len(a.names) + len(b.names) + (len(ids) if base else len(a.heap) + len(b.heap))
        meter.charges += 1
    own: dict[int, HeapObj] = {}
    for i in ids:
        oa, ob = a.heap.get(i), b.heap.get(i)
        own[i] = oa if oa is ob else _merge_obj(i, oa, ob, ca, cb) if oa is not None and ob is not None \
            else (oa or ob)  # type: ignore[assignment]
    return State(names, Heap(base, own), base_path, False, meter)
