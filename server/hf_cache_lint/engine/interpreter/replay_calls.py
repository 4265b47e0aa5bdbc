"""The calls inlined inside a recorded run (engine/interpreter/replay.py), one by one: a run that must run again
(it inlines the edited function) replays each call it inlines that is given the same, where it was (`frame`), and
reads the same as a call recorded at the last check (`replay_call`); the others run and are recorded for the
next check, with where each started (`Trial`, for `replay_through.py`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.interpreter.function_keys import Key
from hf_cache_lint.engine.interpreter.replay_matching import facts_are, moves, same, shift_call
from hf_cache_lint.engine.interpreter.replay_recording import recorded, snapshot
from hf_cache_lint.engine.interpreter.replay_records import ABSENT, CallRecord, Reads, Trial, merge
from hf_cache_lint.engine.interpreter.values import HeapObj, Value
from hf_cache_lint.engine.output.analysis import Site
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.replay import Replays


def call(rs: Replays, node: Node, names: dict[str, Value], via: Site | None, run: Callable[[], Value]) -> Value:
    """An inlined call of `node` inside a recorded run (UserFunctions.inline): the value and what it did as a
    call recorded at the last check gave them, when it was given the same and all it read is the same
    (its run's reads are the enclosing run's too); else `run()`, recorded for the next check."""
    s, outer, source = rs.s, rs.s.reads, rs.source
    if outer is None or source is None or not rs.record or s.stopped is not None:
        return run()
    key = source.key(node)
    given = tuple(names.items())
    where = (s.state.path, s.via if s.via is not None else via, tuple(map(frame, s.stack)), s.loop_depth)
    for c in rs.previous_calls.get(key, ()):
        if rs.shift is not None:
            moved_call = shift_call(rs.shift, rs.shifted, c)
            if moved_call is None:
                continue
            c = moved_call
        if c.where == where and len(c.given) == len(given) and \
                all(n == m and same(v, w) for (n, v), (m, w) in zip(c.given, given, strict=True)) and \
                replay_call(rs, node, c):
            keep_call(rs, key, c)
            s.written = c.written
            return c.result
    inner = Reads(s.next_id)
    at = snapshot(s)
    analysed_at = rs.imports.modules_analysed if rs.imports is not None else 0
    trials, start = rs.trials, rs.run_start
    state = s.state
    trying = trials is not None and start is not None and not state.dead
    base: dict[int, HeapObj] = {}
    own: dict[int, HeapObj] = {}
    frames: tuple[tuple[Node, ...], tuple[tuple[Node, object], ...], Site | None] = ((), (), None)
    if trying:  # where the call starts (what the run changes later of the heap's own part is not seen)
        base, own, frames = state.heap.base, dict(state.heap.own), (tuple(s.stack), tuple(s.callers), s.via)
    s.reads = inner
    try:
        result = run()
    finally:
        s.reads = outer
        merge(outer, inner.names.items(), inner.heap.items(), inner.forced.items(), inner.bodies,
              inner.methods, inner.called, inner.written, inner.resolutions.items(), inner.stamps.items())
        outer.impure = outer.impure or inner.impure
    written = s.written
    got = recorded(s, source, rs.imports, rs.limits, inner, at, analysed_at, key, s.state.heap,
                   (result, *(v for _, v in written)))
    record = CallRecord(given, where, got, result, written) if got is not None else None
    if record is not None:
        keep_call(rs, key, record)
    if trying and trials is not None and start is not None:
        trials.append((node, None if record is None else Trial(
            node=node, given=given, via=via, base=base, own=own, path=where[0], stack=frames[0],
            callers=frames[1], session_via=frames[2], loop_depth=where[3], steps_in=at.steps - start.steps,
            work_in=at.work - start.work, charges_in=at.charges - start.charges, next_id=at.ids,
            facts=at.facts, guarded=at.guarded, record=record)))
    return result


def keep_call(rs: Replays, key: Key, c: CallRecord) -> None:
    """A call recorded or replayed inside a recorded run: this check's (unless it is a `through` trial's), and
    the run's (`Replays.inner`)."""
    if not rs.trying:
        rs.calls.setdefault(key, []).append(c)
    if rs.inner is not None:
        rs.inner.append((key, c))


def replay_call(rs: Replays, node: Node, c: CallRecord) -> bool:
    """Put back what the recorded call did, when all it read is the same now and it starts at the heap id
    it started at (its value and objects keep their ids)."""
    r, s, source = c.run, rs.s, rs.source
    outer = s.reads
    if outer is None or source is None or s.next_id != r.ids_at or s.steps + r.steps > rs.max_steps \
            or s.next_id + r.ids > rs.max_heap or not facts_are(s, r.before):
        return False
    names, heap = s.module_state.names, s.state.heap
    moved = rs.moved
    if moved is not None and any(moves(v, moved) for v in (*(v for _, v in c.given), *(v for _, v in r.names),
                                                              *(v for _, v in r.forced), *(o for _, o in r.heap))):
        return False
    imports = rs.imports
    resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
    if not all(same(names.get(n, ABSENT), v) for n, v in r.names) or \
            not all(same(resolved.get(k, ABSENT), v) for k, v in r.forced) or \
            any(k in resolved for k, _ in r.resolutions) or \
            (imports.modules_analysed if imports is not None else 0) != r.analysed_at or \
            not all(same(heap.get(i), o) for i, o in r.heap) or \
            not all(source.key(n) == k for n, k in r.bodies) or \
            any((rs.method_node(cl, nm) if rs.method_node is not None else None) is not f or
                (f is not None and f.start_pos != at) for cl, nm, f, at in r.methods) or \
            any(deps.stamp(p) != st for p, st in r.stamps):
        return False
    rs.put_back(r, heap)
    # The enclosing run read and did all this too (its own record must say so).
    merge(outer, r.names, r.heap, r.forced, [node, *(n for n, _ in r.bodies)], [*r.methods], [*r.called],
          {i for i, _ in r.effects if i < r.ids_at}, r.resolutions, r.stamps)
    return True


def frame(node: Node) -> tuple[str, str, Span]:
    """A function being inlined around a call, as a recorded call's `where` holds it: where its `def` stands, not
    the node object. An edit inside a caller makes its node a new object at the same place; its callees' calls are
    then still found. What a call reads of the functions around it is only whether a function it inlines is one of
    them (recursion) and how many there are (the depth): a function it reaches, it reached by a read the record
    compares by node identity (a name, a method looked up, a value given), so a changed function there is a new node
    and no replay; an unchanged one is the one node at that place in both trees. The place is moved by a line map
    (shift.py) like any other, and one inside the changed lines is no replay."""
    at = Position(*node.start_pos)
    name = node.name.value if node.type == "funcdef" else ""
    return node.type, name, Span(at, at)


__all__ = ["call", "frame", "keep_call", "replay_call"]
