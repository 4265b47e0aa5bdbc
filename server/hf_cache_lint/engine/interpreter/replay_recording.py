"""Recording a run for a replay at the next check (engine/interpreter/replay.py): where it started (`snapshot`),
what it read and did once it ended, when a replay could stand for it (`recorded`), and which of the calls it ran
may stand for their function's runs inside it (`complete`).

A run is not recorded when it did anything else that a later function or the analysis could see: it changed the
module's names, read the disk otherwise (a checkpoint, `__file__`, a folder named in the code), hit a statement
too deeply nested, or spent the budget. What else stays of a run on the heap is only what it built itself, which
nothing outside it reaches; a replay leaves those objects out (their ids are still used up, so later ids are the
same).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hf_cache_lint.engine.interpreter.function_keys import Key, Source
from hf_cache_lint.engine.interpreter.replay_records import Reads, Replay, Start, Trial
from hf_cache_lint.engine.interpreter.state import Heap, reachable
from hf_cache_lint.engine.interpreter.values import HeapObj, Ref, Value
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
    from hf_cache_lint.engine.interpreter.session import Session


def snapshot(s: Session) -> Start:
    """Where a run starts: the session's facts, module names, counters and lengths of what it records."""
    return Start(s.facts(), tuple(s.module_state.names.items()), s.steps, s.next_id, s.meter.work,
                 s.meter.charges, len(s.recorded), frozenset(s.version_guarded), len(s.skipped))


def recorded(s: Session, source: Source | None, imports: WorkspaceImports | None, limits: tuple[int, int, int],
             reads: Reads, at: Start, analysed_at: int, own: Key, heap: Heap,
             more_roots: tuple[Value, ...]) -> Replay | None:
    """What a run that just ended read and did, when a replay could stand for it (None: it cannot); `limits`:
    the budget's MAX_STEPS, MAX_HEAP and MAX_WORK."""
    if source is None:
        return None
    max_steps, max_heap, max_work = limits
    end = s.module_state.names
    # Past MAX_STEPS or half of MAX_WORK its inlining decisions read the budget: not a function of its reads.
    if reads.impure or s.stopped is not None or len(s.skipped) != at.skipped or len(end) != len(at.names) \
            or any(end.get(n) is not v for n, v in at.names) or s.steps > max_steps \
            or s.next_id > max_heap or s.meter.work > max_work // 2:
        return None
    effects: dict[int, HeapObj] = {}
    if reads.written or reads.resolutions or more_roots:
        roots: list[Value] = [Ref(i) for i in sorted(reads.written)]
        roots.extend(reads.resolutions.values())
        roots.extend(more_roots)
        # What the written objects and resolved values reach that the run made (the rest a replay keeps).
        effects = {i: o for i, o in sorted(reachable(heap, roots).items())
                   if i in reads.written or i >= reads.first_id}
    analysed = imports.modules_analysed if imports is not None else 0
    return Replay(
        effects=tuple(effects.items()), resolutions=tuple(reads.resolutions.items()),
        stamps=tuple(reads.stamps.items()), analysed_at=analysed_at, analysed=analysed - analysed_at,
        names=tuple(reads.names.items()), forced=tuple(reads.forced.items()), heap=tuple(reads.heap.items()),
        # The function itself is the key; the others are checked at a replay.
        bodies=tuple((n, k) for n in dict.fromkeys(reads.bodies) if (k := source.key(n)) != own),
        methods=tuple(dict.fromkeys(reads.methods)),
        path=s.module_state.path, before=at.facts, ids_at=at.ids, steps=s.steps - at.steps,
        ids=s.next_id - at.ids, work=s.meter.work - at.work, charges=s.meter.charges - at.charges,
        recorded=tuple(s.recorded[at.recorded:]),
        guarded=tuple(s.version_guarded - at.guarded), after=(after := s.facts()), called=tuple(reads.called),
        changes_facts=after != at.facts)


def complete(trials: list[tuple[Node, Trial | None]], bodies: list[Node]) -> tuple[Trial, ...]:
    """The trials of the functions whose every run inside the recorded run was a call it recorded: as many
    as the run's bodies name the function (a body runs once per call; a replayed call's record names the
    functions it ran once each, and a run that was not a call, e.g. an `__init__` of an instantiation outside
    `inline`, has no trial: either leaves the function without its trials)."""
    by: dict[int, list[Trial | None]] = {}
    for node, t in trials:
        by.setdefault(id(node), []).append(t)
    counts: dict[int, int] = dict.fromkeys(by, 0)
    for n in bodies:
        if id(n) in counts:
            counts[id(n)] += 1
    return tuple(t for node, t in trials if t is not None and None not in by[id(node)]
                 and counts[id(node)] == len(by[id(node)]))


__all__ = ["complete", "recorded", "snapshot"]
