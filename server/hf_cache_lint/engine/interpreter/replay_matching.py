"""How a run recorded at a buffer's last check (engine/interpreter/replay.py) is matched to this check: what every
run of the module reads besides its own inputs (`fingerprint`), values compared as values plus the identity of the
function and class nodes they hold (`same`), whether one holds a node a line-count change may have moved
(`moves`, `moved_from`), the module-wide facts compared field by field (`facts_are`), and the recorded runs and
calls found under where their functions stand now and moved by this check's line map (`rekeyed`, `shift_run`,
`shift_call`: engine/interpreter/shift.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.interpreter.replay_records import CallRecord, Facts, Replay, Trial
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    ClassDef,
    ConfigState,
    Const,
    Function,
    HeapObj,
    Lazy,
    Ref,
    Symbol,
    Unknown,
    children,
)

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.session import Session


def fingerprint(context: Context, guards: object) -> tuple[object, ...]:
    """What every run of the module reads besides its own inputs: the context and the version guards."""
    g = guards
    return (context, frozenset(getattr(g, "modules", ())), frozenset(getattr(g, "version_names", ())),
            tuple(getattr(g, "names", {}).items()))


def same(a: object, b: object) -> bool:
    """Equal as values, and holding the same function and class nodes (values compare those by name only)."""
    if a is b:
        return True
    if a != b:
        return False
    return isinstance(a, _NO_NODES) or _nodes(a) == _nodes(b)


# Values and heap objects that cannot hold a function or class (no value inside them can; not an `Output`, whose
# stored members may).
_NO_NODES = (Unknown, Const, CacheVal, Ref, Symbol, Lazy, ConfigState)


def _nodes(x: object) -> list[int]:
    """id() of the function and class nodes a value or heap object holds, in order (refs not followed)."""
    out: list[int] = []
    todo: list[object] = [x]
    while todo:
        v = todo.pop()
        if v is None or isinstance(v, _NO_NODES):
            continue
        if isinstance(v, (Function, ClassDef)):
            out.append(id(v.node))
        todo.extend(children(v))
    return out


def moves(x: object, line: int) -> bool:
    """Whether a value or heap object holds a function or class node that starts at or after `line` (refs not
    followed)."""
    todo: list[object] = [x]
    while todo:
        v = todo.pop()
        if v is None or isinstance(v, _NO_NODES):
            continue
        if isinstance(v, (Function, ClassDef)) and getattr(v.node, "start_pos", (0, 0))[0] >= line:
            return True
        todo.extend(children(v))
    return False


def moved_from(before: tuple[int, int], now: tuple[int, int]) -> int | None:
    """The first line from which a node of the kept tree may stand elsewhere than at the last check, from the
    parser's count of line-count changes then and now (engine/syntax/parsing.py `moves`): None after none, the
    line the change began at after one (this check's parse), the first line after more."""
    if now[0] == before[0]:
        return None
    return now[1] if now[0] == before[0] + 1 else 1


def facts_are(s: Session, f: Facts) -> bool:
    """`s.facts() == f`, field by field without building the session's Facts (a set equals the frozenset of
    its items; the tuples of items as facts() builds them)."""
    return f.env_set == s.env_set and f.custom_tasks == s.custom_tasks and f.own_generate == s.own_generate \
        and f.unsloth_fast_disabled == s.unsloth_fast_disabled \
        and f.saved == tuple(s.saved.items()) and f.pending_ci == tuple(s.pending_ci.items())


_K = TypeVar("_K")
_V = TypeVar("_V")


def rekeyed(runs: Mapping[_K, _V], move: Callable[[_K], _K]) -> dict[_K, _V]:
    """The last check's runs (or calls) under where their functions stand now (those inside the changed lines
    are dropped: their code changed)."""
    out: dict[_K, _V] = {}
    for k, v in runs.items():
        try:
            out[move(k)] = v
        except Unmapped:
            continue
    return out


# -- a line map: what the last check recorded, moved to where it stands now (Replays.shift) ---------------------
def shift_run(shift: Shifter, shifted: dict[int, Replay | CallRecord | None], r: Replay) -> Replay | None:
    """The recorded run with every place it holds moved by this check's line map (None: one is inside the
    changed lines, shift.py); once per run and check (`shifted`: the check's answers, by id() of the recorded
    run or call)."""
    if id(r) in shifted:
        return shifted[id(r)]  # type: ignore[return-value]
    try:
        m = shift.map
        before = m(r.before)
        changes = dict(
            names=shift.pairs(r.names), forced=shift.pairs(r.forced), heap=shift.pairs(r.heap),
            bodies=tuple((n, shift.key(k)) for n, k in r.bodies),
            methods=tuple((c, name, f, shift.start(at) if at is not None else None) for c, name, f, at in r.methods),
            path=m(r.path), before=before, recorded=m(r.recorded), guarded=m(r.guarded),
            after=m(r.after) if r.changes_facts else before, effects=shift.pairs(r.effects),
            resolutions=shift.pairs(r.resolutions))
        moved: Replay | None = r
        # A run wholly before the changed lines holds nothing that moved: itself (the map keeps what did not move,
        # and the keys and starts compare as numbers). Else a copy, as `replace` makes it without its checks.
        if any(v is not (old := r.__dict__[k]) and (k not in _REBUILT or v != old) for k, v in changes.items()):
            moved = object.__new__(Replay)
            moved.__dict__.update(r.__dict__)
            moved.__dict__.update(changes)
    except Unmapped:
        moved = None
    shifted[id(r)] = moved
    return moved


_REBUILT = frozenset(("bodies", "methods"))  # shift_run's fields made anew even where nothing moved


def shift_call(shift: Shifter, shifted: dict[int, Replay | CallRecord | None], c: CallRecord) -> CallRecord | None:
    """An inlined call's record moved as `shift_run` moves a run."""
    got = shifted.get(id(c), c)
    if got is not c:
        return got  # type: ignore[return-value]
    run = shift_run(shift, shifted, c.run)
    moved: CallRecord | None = None
    if run is not None:
        try:
            moved = CallRecord(shift.pairs(c.given), shift.map(c.where), run, shift.map(c.result),
                               shift.pairs(c.written))
        except Unmapped:
            moved = None
    shifted[id(c)] = moved
    return moved


def shift_trial(shift: Shifter, shifted: dict[int, Replay | CallRecord | None],
                heaps: dict[int, tuple[dict[int, HeapObj], dict[int, HeapObj]]], t: Trial) -> Trial | None:
    """Where an inlined call started (`Trial`) moved as `shift_run` moves a run: what it was given, the caller's
    heap and path, the call sites around it, the facts, and the call's record (None: a place is inside the changed
    lines). The functions around it stay the last check's nodes (replay.py finds this tree's). A heap's shared base
    is moved once per check (`heaps`, by id() of the recorded dict: the trials of one run share bases)."""
    record = shift_call(shift, shifted, t.record)
    if record is None:
        return None
    m = shift.map
    try:
        base = _shift_heap(shift, heaps, t.base)
        return replace(
            t, given=shift.pairs(t.given), via=m(t.via), base=base, own={i: m(o) for i, o in t.own.items()},
            path=m(t.path), callers=tuple((n, m(w)) for n, w in t.callers), session_via=m(t.session_via),
            facts=m(t.facts), guarded=m(t.guarded), record=record)
    except Unmapped:
        return None


def _shift_heap(shift: Shifter, heaps: dict[int, tuple[dict[int, HeapObj], dict[int, HeapObj]]],
                heap: dict[int, HeapObj]) -> dict[int, HeapObj]:
    got = heaps.get(id(heap))
    if got is not None and got[0] is heap:
        return got[1]
    m = shift.map
    moved = {i: m(o) for i, o in heap.items()}
    heaps[id(heap)] = (heap, moved)
    return moved


__all__ = ["facts_are", "fingerprint", "moved_from", "moves", "rekeyed", "same", "shift_call", "shift_run",
           "shift_trial"]
