"""Runs replayed through the calls of edited functions (engine/interpreter/replay.py, `Replays.through`).

A run that read the same but the code of functions it inlined (`generate`, when a method it inlines is edited) is
replayed when each call of those inside it, run again where it started at the last check (`Trial`: the caller's
path and heap, the functions inlined around it, the counters and facts, what it was given) with the new code,
does what the recorded call did: the run around the call is a function of what it read and of what the call
gave it, so it did the same (`through`). Where the call starts is kept at a keystroke for the functions whose
every run inside the recorded run was such a call (`replay_recording.complete`); the new call's reads of the
objects that existed before the run are the module's objects now (compared where the run had not read them
first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from hf_cache_lint.engine.interpreter.function_keys import Key
from hf_cache_lint.engine.interpreter.replay_matching import same, shift_call, shift_trial
from hf_cache_lint.engine.interpreter.replay_records import CallRecord, Reads, Replay, RunKey, Trial
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.state import Heap, State
from hf_cache_lint.engine.interpreter.values import Value
from hf_cache_lint.engine.output.analysis import Site
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.replay import Replays

RunFunction = Callable[[Node, dict[str, Value], Site | None], Value]  # UserFunctions.run_function


def through(rs: Replays, key: RunKey, run_function: RunFunction) -> bool:
    """Record again what the run recorded under `key` did, when all it read is the same now but the code of
    functions it inlined, and each call of those inside it, run again with their new code where it started at
    the last check (`Trial`), did what it did then: the same value, effects, facts, figures and functions
    inlined. The run around the calls read the same and was given the same, so it did the same; its record
    now reads what the new calls read. A one-character edit inside a method that `generate` inlines: the
    method's call runs again, not `generate` (on transformers' generation/utils.py ~1.7 ms for ~7.7 ms).

    After one update that added or removed lines (Enter, a join: `shift`), the trials, the calls recorded
    inside the run and their records are moved by the line map as the run is (a trial with a place inside the
    changed lines: no replay): the same code from the same inputs, moved, does the same, moved. After more
    than one such update since the last check, none (`moved`)."""
    previous = rs.previous.get(key)
    if previous is None or not previous.trials or rs.moved is not None or \
            rs.tree is None or rs.source is None:
        return False
    r = rs.previous_run(key)
    changed = rs.unread(r, True) if r is not None else None
    if r is None or not changed:
        return False
    source, tree = rs.source, rs.tree
    changed_ids = {id(n) for n in changed}
    if rs.shift is not None:
        r = _shifted_calls(rs, r, changed_ids)
        if r is None:
            return False
    tried = [t for t in r.trials if id(t.node) in changed_ids]
    if {id(t.node) for t in tried} != changed_ids or not all(_root(n) is tree for n in changed):
        return False
    outer = Reads(r.ids_at)
    records: dict[int, CallRecord] = {}
    for t in tried:
        got = _trial(rs, t, outer, run_function)
        if got is None:
            return False
        records[id(t)] = got
    rs.forget_compared()
    # What the new calls read of the objects that existed before the run: where the run had not read one
    # first, it is the module's object now (the trial's heap is the last check's).
    before = dict(r.heap)
    end = rs.s.module_state
    fresh = [(i, o) for i, o in outer.heap.items() if i not in before]
    if not all(same(end.heap.get(i), o) for i, o in fresh):
        return False
    names = dict(r.names)
    for n, v in outer.names.items():
        names.setdefault(n, v)
    forced = dict(r.forced)
    for k, v in outer.forced.items():
        forced.setdefault(k, v)
    bodies = {id(n): (n, source.key(n)) for n, _ in r.bodies}
    own_key = key[0]
    for n in outer.bodies:
        if id(n) not in bodies and (nk := source.key(n)) != own_key:
            bodies[id(n)] = (n, nk)
    # The calls' new records stand for the old ones, under the functions' keys now.
    replaced = {id(t.record): (source.key(t.node), records[id(t)]) for t in tried}
    kept = replace(
        r, names=tuple(names.items()), heap=(*r.heap, *fresh), forced=tuple(forced.items()),
        bodies=tuple(bodies.values()), methods=tuple(dict.fromkeys((*r.methods, *outer.methods))),
        trials=tuple(replace(t, record=records[id(t)]) if id(t) in records else t for t in r.trials),
        inner=tuple(replaced.get(id(c), (k, c)) for k, c in r.inner))
    rs.apply(key, kept, moved=True)
    return True


def _shifted_calls(rs: Replays, r: Replay, changed: set[int]) -> Replay | None:
    """The run's trials and inner calls moved by this check's line map (r itself is moved): None when a trial
    of a changed function cannot be; where another's cannot, every trial of its function is left out (a
    function's trials stand for its runs only all together: `complete`; its next edit runs the run again), and
    an inner call that cannot is left out (it runs at a later full run of this one)."""
    shift = rs.shift
    assert shift is not None
    trials: list[Trial] = []
    lost: set[int] = set()  # id() of the functions a trial of which could not be moved
    for t in r.trials:
        moved = shift_trial(shift, rs.shifted, rs.heaps, t)
        if moved is not None:
            # The functions being inlined around the call, as this tree's nodes: the splice may have made a
            # new node of a function after the changed lines (parso's diff parser), and a call compares them
            # by identity (recursion) and reads where they start (`replay_calls.frame`).
            stack = tuple(_node_now(rs, n, shift) for n in moved.stack)
            callers = tuple((_node_now(rs, n, shift), w) for n, w in moved.callers)
            if None in stack or any(n is None for n, _ in callers):
                moved = None
            else:
                moved = replace(moved, stack=stack, callers=callers)
        if moved is None:
            if id(t.node) in changed:
                return None
            lost.add(id(t.node))
            continue
        trials.append(moved)
    if lost:
        trials = [t for t in trials if id(t.node) not in lost]
    inner: list[tuple[Key, CallRecord]] = []
    for k, c in r.inner:
        try:
            nk = shift.key(k)
        except Unmapped:
            continue
        mc = shift_call(shift, rs.shifted, c)
        if mc is not None:
            inner.append((nk, mc))
    return replace(r, trials=tuple(trials), inner=tuple(inner))


def _node_now(rs: Replays, node: Node, shift: Shifter) -> Node | None:
    """The node of this check's tree that stands for `node` of the last check's (None: none): itself when it is
    in the tree, else the node of its type (and name) at its place moved by the line map (a node the splice
    replaced keeps its parent and its places). Its code is compared elsewhere (the run's key for the function
    it is, its `bodies` for those it ran), and where each function around a call starts is part of the call's
    `where` (`_did_the_same`)."""
    tree = rs.tree
    if tree is None:
        return None
    got = rs.nodes_now.get(id(node))
    if got is not None and got[0] is node:
        return got[1]
    found: Node | None = node if _in_tree(node, tree) else None
    if found is None:
        n: Node | None = None
        try:
            at: tuple[int, int] | None = shift.start(node.start_pos)
            n = tree.get_leaf_for_position(at)
        except (Unmapped, ValueError, IndexError):  # inside the changed lines, past the text's end, no leaf left
            at = None
        if at is not None:
            while n is not None and not (n.type == node.type and n.start_pos == at):
                n = n.parent
            if n is not None and (node.type != "funcdef" or n.name.value == node.name.value):
                found = n
    rs.nodes_now[id(node)] = (node, found)
    return found


def _trial(rs: Replays, t: Trial, outer: Reads, run_function: RunFunction) -> CallRecord | None:
    """The call of `t` run again where it started, with its function's code now: its record, when it did
    what the recorded call did (else None). The session and this check's replays are left as they were."""
    s, imports = rs.s, rs.imports
    saved = (s.state, s.stack, s.callers, s.returns, s.via, s.loop_depth, s.steps, s.next_id, s.meter.work,
             s.meter.charges, s.facts(), s.version_guarded, s.called, len(s.recorded), s.reads, s.stopped,
             len(s.skipped), rs.first_charges, rs.ids, rs.trials, rs.inner, rs.trying)
    resolved = dict(imports.resolved) if imports is not None else None
    analysed = imports.modules_analysed if imports is not None else 0
    record: CallRecord | None = None
    try:
        s.state = State({}, Heap(t.base, dict(t.own)), t.path, False, s.meter)
        s.stack, s.callers, s.returns, s.via = list(t.stack), list(t.callers), [], t.session_via
        s.loop_depth = t.loop_depth
        s.steps, s.next_id = s.steps + t.steps_in, t.next_id
        s.meter.work, s.meter.charges = s.meter.work + t.work_in, s.meter.charges + t.charges_in
        s.set_facts(t.facts)
        s.version_guarded, s.called = set(t.guarded), set(s.called)
        s.reads = outer
        rs.trials, rs.inner, rs.trying = None, [], True
        given = dict(t.given)
        result = rs.call(t.node, given, t.via, lambda: run_function(t.node, given, t.via))
        inner = rs.inner
        if inner and inner[-1][1].result is result and s.stopped is None and \
                inner[-1][0] == (rs.source.key(t.node) if rs.source is not None else None):
            record = inner[-1][1]
    finally:
        (s.state, s.stack, s.callers, s.returns, s.via, s.loop_depth, s.steps, s.next_id, s.meter.work,
         s.meter.charges) = saved[:10]
        s.set_facts(saved[10])
        s.version_guarded, s.called = saved[11], saved[12]
        del s.recorded[saved[13]:]
        s.reads, s.stopped = saved[14], saved[15]
        del s.skipped[saved[16]:]
        rs.first_charges, rs.ids, rs.trials, rs.inner, rs.trying = saved[17:]
        if imports is not None and resolved is not None:
            imports.resolved.clear()
            imports.resolved.update(resolved)
            imports.modules_analysed = analysed
    if record is None or not _did_the_same(record, t.record):
        return None
    return record


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def _in_tree(node: Node, tree: Node) -> bool:
    """Whether `node` is in `tree`: a node the splice replaced keeps its parent, which no longer holds it."""
    while node.parent is not None:
        if not any(c is node for c in node.parent.children):
            return False
        node = node.parent
    return node is tree


def _did_the_same(new: CallRecord, old: CallRecord) -> bool:
    """Whether a call run again where it started did what its recorded run did: the same value, the same
    objects left changed (by id), facts recorded, module-wide facts, version-guarded blocks, functions inlined,
    steps, ids and charges; none of them resolved a workspace import or read a file."""
    a, b = new.run, old.run
    return new.where == old.where and same(new.result, old.result) and len(new.written) == len(old.written) \
        and all(n == m and same(v, w) for (n, v), (m, w) in zip(new.written, old.written, strict=True)) \
        and a.steps == b.steps and a.ids == b.ids \
        and a.charges == b.charges and a.ids_at == b.ids_at and not (a.resolutions or b.resolutions or a.stamps
                                                                      or b.stamps or a.analysed or b.analysed) \
        and a.before == b.before and a.after == b.after and set(a.guarded) == set(b.guarded) \
        and {id(n) for n in a.called} == {id(n) for n in b.called} \
        and len(a.recorded) == len(b.recorded) and all(same(x, y) for x, y in zip(a.recorded, b.recorded, strict=True)) \
        and len(a.effects) == len(b.effects) and all(i == j and same(o, p) for (i, o), (j, p) in
                                                     zip(a.effects, b.effects, strict=True))


__all__ = ["RunFunction", "through"]
