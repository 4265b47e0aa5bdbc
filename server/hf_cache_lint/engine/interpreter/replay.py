"""Replays of uncalled functions' runs: the language server checks a buffer again at every keystroke, and a
one-character edit changes one function; each other function nobody calls in the module ran last time
against the same module state (run_uncalled: the module's final state, parameters unknown), so what that run
recorded is recorded again without running it.

A run is keyed by its function's position and code and by what it is given besides what it reads (a method's
`self`: its class and the heap id of the class's shared instance, which run_uncalled sets up at the class's first
uncalled method whether that method runs or is replayed). It is recorded (`Reads`, filled by the session's hooks
while it runs) with everything it read from outside its own locals: the module's names it looked up, the heap
objects that existed before it (by id, as they were when first read or written), the workspace imports an
earlier run of this check had resolved (by value), the functions it ran (node, position, code) and the methods
it looked up by name in a class (the node found: not the whole class body, which an edit of any method changes),
and the module-wide facts (`Facts`); and with everything it did: the facts it recorded (of whatever kind, without
naming kinds), the facts after it, the functions it inlined (`called`), its budget figures, and its effects: the
heap objects that existed before it and that it changed (Session.put), the workspace imports it resolved first
(imports.py: another module read from disk, every file consulted stamped with deps.stamp) and the objects of its
own those reach. A replay requires all it read to be equal now (values compared as values, plus the identity of
the function and class nodes they hold: `Function` compares by name only) and, for a run with effects, the same
next heap id (its objects then get the ids a run would give them), the same count of modules analysed and every
consulted file as it was; it then puts the effects back (the objects, the resolved imports, the count).

A run that read the same but the code of functions it inlined (`generate`, when a method it inlines is edited) is
replayed when each call of those inside it, run again where it started at the last check (`Trial`: the caller's
path and heap, the functions inlined around it, the counters and facts, what it was given) with the new code,
does what the recorded call did: the run around the call is a function of what it read and of what the call
gave it, so it did the same (`through`). Where the call starts is kept at a keystroke for the functions whose
every run inside the recorded run was such a call; the new call's reads of the objects that existed before the
run are the module's objects now (compared where the run had not read them first).

A run is not recorded when it did anything else that a later function or the analysis could see: it changed the
module's names, read the disk otherwise (a checkpoint, `__file__`, a folder named in the code), hit a statement
too deeply nested, or spent the budget. What else stays of a run on the heap is only what it built itself, which
nothing outside it reaches; a replay leaves those objects out (their ids are still used up, so later ids are the
same).

The budget: steps and ids are counted exactly (a replay adds the recorded figures). The meter is not: it
counts state sizes, and the objects a replay leaves out make the heap smaller. Every charge of the meter
is the size of a few names (the same either way) plus at most 4x the ids allocated so far (a heap holds only
allocated ids: base and own each at most that many, a join of two heaps twice that); so after the first
replay the meter of a run without replays is within `4 * ids * charges` of this one's (`slack`). As long as
this one's meter plus that slack stays at or under MAX_WORK // 2, no decision of either run reads a different
answer from the meter (inlining stops past MAX_WORK // 2, the analysis past MAX_WORK), and the analysis is
the one a run without replays would give; past it, the module is analysed again without replays
(Interpreter.run_module).

Here: recording and replaying (`Replays`). What a recorded run is made of: replay_records.py; how one is matched
to this check (values, nodes, facts, the line map): replay_matching.py; the process-wide store: replay_store.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.interpreter.function_keys import Key, Source
from hf_cache_lint.engine.interpreter.replay_matching import (
    facts_are,
    moved_from,
    moves,
    rekeyed,
    same,
    shift_call,
    shift_run,
    shift_trial,
)
from hf_cache_lint.engine.interpreter.replay_records import (
    ABSENT,
    CallRecord,
    Reads,
    Replay,
    RunKey,
    Start,
    Trial,
    merge,
)
from hf_cache_lint.engine.interpreter.replay_store import Document, keep
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.state import Heap, State, reachable
from hf_cache_lint.engine.interpreter.values import HeapObj, Ref, Value
from hf_cache_lint.engine.output.analysis import Site
from hf_cache_lint.engine.syntax import parsing
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
    from hf_cache_lint.engine.interpreter.session import Session


class Replays:
    """The replays of one check: `replay` a recorded run when everything it read is the same, else `start`
    recording one, `finish` it; `sound` at the end says whether the budget argument holds (the docstring);
    `keep` stores this check's runs for the next one."""

    def __init__(self, session: Session, source: Source | None, previous: Document | None,
                 fingerprint: tuple[object, ...], use: bool, max_steps: int, max_heap: int, max_work: int,
                 imports: WorkspaceImports | None = None,
                 method_node: Callable[[Node, str], Node | None] | None = None, tree: Node | None = None) -> None:
        self.s = session
        self.tree = tree  # the buffer's tree (a function run again by `through` must stand in it)
        self.imports = imports
        self.method_node = method_node  # UserFunctions.method_node: a class's method by name
        self.source = source
        self.fingerprint = fingerprint
        # A path checked once (the CLI) records nothing; nor does one analysed near its budget, nor a tree that
        # is not an editor buffer's (source_of).
        self.record = source is not None and previous is not None and previous.small
        usable = use and self.record and previous is not None and previous.fingerprint == fingerprint
        self.previous = previous.runs if previous is not None and usable else {}
        self.previous_calls = previous.calls if previous is not None and usable else {}
        # A value holding a function or class node is compared by the node's identity (`same`): a node the
        # splice moved (a line added above it) is the same object elsewhere, and what a run recorded of where it
        # stood (a span) would be stale. After one update that added or removed lines since the last check, the
        # parser says where it moved every line (`parsing.last_map`): the last check's runs are found under
        # where their functions stand now, and what one holds of places is moved the same way (shift.py) when it
        # is replayed. After more than one, runs that read such a value are not replayed.
        self.moves = parsing.moves(session.path)
        self.moved = moved_from(previous.moves, self.moves) if previous is not None and usable else None
        self.shift: Shifter | None = None
        lines = parsing.last_map(session.path) if self.moved is not None and previous is not None else None
        if lines is not None and previous is not None and self.moves[0] == previous.moves[0] + 1:
            self.shift = shift = Shifter(lines)
            self.moved = None
            self.previous = rekeyed(self.previous, lambda k: (shift.key(k[0]), k[1]))
            self.previous_calls = rekeyed(self.previous_calls, shift.key)
        self._shifted: dict[int, Replay | CallRecord | None] = {}  # by id() of the recorded run or call
        self._heaps: dict[int, tuple[dict[int, HeapObj], dict[int, HeapObj]]] = {}  # trials' bases moved
        self._nodes_now: dict[int, tuple[Node, Node | None]] = {}  # by id() of the last check's node (_node_now)
        self.runs: dict[RunKey, Replay] = {}
        self.calls: dict[Key, list[CallRecord]] = {}
        self.max_steps, self.max_heap, self.max_work = max_steps, max_heap, max_work
        self.first_charges: int | None = None  # the meter's charges when the first replay was made
        self.ids = 0  # the most ids any replayed recording had allocated when it ended
        self._key: RunKey | None = None
        self._start: Start | None = None
        self._analysed_at = 0  # imports.modules_analysed when the recorded run started
        # While a top-level run is recorded at a keystroke (not a buffer's first check, where every call runs):
        # each call run inside it, where it started (`Trial`; None: its run could not be recorded), and every
        # call recorded inside it. `_trying`: a call runs again where it started (`through`); what it records
        # is not this check's.
        self._trials: list[tuple[Node, Trial | None]] | None = None
        self._inner: list[tuple[Key, CallRecord]] | None = None
        self._trying = False
        # What the replays of this check found of a recorded value, by (module name or heap id, id() of the
        # recorded value): the uncalled functions recorded in one check read the same module objects, so the
        # first replay compares them and the others find the answer. Valid while the module's names and
        # heap are as they were (`_same_at`: nothing ran since; a replay changes neither).
        self._same: dict[tuple[object, int], bool] = {}
        self._same_at: tuple[object, ...] = ()

    def key(self, node: Node, bound: object = None) -> RunKey | None:
        """The run's key when recordings are on for this check (None: nothing is replayed or recorded): the
        function's position and code, and what its run is given besides what it reads (`bound`: the class and
        heap id of the instance a method's `self` is, None for a function: a def that moved in or out of a
        class, or lost `@staticmethod`, runs with other parameters)."""
        if self.source is None or not self.record or self.s.stopped is not None or not self.s.recording:
            return None
        return self.source.key(node), bound

    def replay(self, key: RunKey) -> bool:
        """Record again what the run recorded under `key` did, when all it read is the same now."""
        r = self._previous_run(key)
        if r is None or self._unread(r, False) is None:
            return False
        self._apply(key, r)
        return True

    def _previous_run(self, key: RunKey) -> Replay | None:
        """The run recorded under `key` at the last check (moved by the line map), when the budget has room for it."""
        r = self.previous.get(key)
        s = self.s
        if r is not None and self.shift is not None:
            r = shift_run(self.shift, self._shifted, r)
        if r is None or s.steps + r.steps > self.max_steps or s.next_id + r.ids > self.max_heap:
            return None
        return r

    def _unread(self, r: Replay, bodies_may_change: bool) -> list[Node] | None:
        """None when something the recorded run read is not the same now; else the functions it ran whose code
        changed since (`bodies_may_change`; otherwise that is a difference too)."""
        assert self.source is not None  # as for every key
        source = self.source
        s = self.s
        end = s.module_state
        if end.path != r.path or not facts_are(s, r.before):
            return None
        # Every run (a function's, an `__init__`'s, an annotation's evaluation) adds steps or charges, and a
        # function's run gives the module's state a new heap: the same figures, nothing ran since.
        at = (end, end.names, end.heap, (s.steps, s.meter.charges, s.next_id))
        memo = self._same
        was = self._same_at
        if not was or was[0] is not end or was[1] is not end.names or was[2] is not end.heap or was[3] != at[3]:
            memo.clear()
        moved = self.moved
        for n, v in r.names:
            got = memo.get((n, id(v)))
            if got is None:
                got = memo[(n, id(v))] = same(end.names.get(n, ABSENT), v) and \
                    (moved is None or not moves(v, moved))
            if not got:
                self._same_at = at
                return None
        imports = self.imports
        resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
        for k, v in r.forced:
            if not same(resolved.get(k, ABSENT), v) or (moved is not None and moves(v, moved)):
                self._same_at = at
                return None
        effectful = bool(r.effects or r.resolutions)
        if effectful and (s.next_id != r.ids_at or any(k in resolved for k, _ in r.resolutions)
                          or (imports.modules_analysed if imports is not None else 0) != r.analysed_at
                          or any(deps.stamp(p) != st for p, st in r.stamps)):
            self._same_at = at
            return None
        for i, o in r.heap:
            got = memo.get((i, id(o)))
            if got is None:
                got = memo[(i, id(o))] = same(end.heap.get(i), o) and (moved is None or not moves(o, moved))
            if not got:
                self._same_at = at
                return None
        changed = [n for n, k in r.bodies if source.key(n) != k]
        if changed and not bodies_may_change:
            self._same_at = at
            return None
        lookup = self.method_node
        for cls, name, found, where in r.methods:
            # The same node object, where it was: a run that runs it records its body (position and code) too.
            if (lookup(cls, name) if lookup is not None else None) is not found or \
                    (found is not None and found.start_pos != where):
                self._same_at = at
                return None
        return changed

    def _apply(self, key: RunKey, r: Replay, moved: bool = False) -> None:
        """Put back what the recorded run did (its reads are the same now: `_unread`; `moved`: its trials and
        inner calls are this check's places)."""
        s = self.s
        end = s.module_state
        imports = self.imports
        effectful = bool(r.effects or r.resolutions)
        if r.trials and not moved and (self.moved is not None or self.shift is not None):
            r = replace(r, trials=(), inner=())  # where its calls started moved: not kept
        if self.first_charges is None:
            self.first_charges = s.meter.charges
        self.ids = max(self.ids, r.ids_at + r.ids)
        s.recorded.extend(r.recorded)
        s.version_guarded.update(r.guarded)
        if r.changes_facts:  # else the session's are r.before's, which are r.after's (checked above)
            s.set_facts(r.after)
        if r.called:
            s.called.update(id(n) for n in r.called)
        if effectful:
            for i, o in r.effects:
                end.heap[i] = o
            if imports is not None:
                imports.resolved.update(r.resolutions)
                imports.modules_analysed += r.analysed
            self._same.clear()  # the module's heap changed
        s.steps += r.steps
        s.next_id += r.ids
        s.meter.work += r.work
        s.meter.charges += r.charges
        self.runs[key] = r
        for k, c in r.inner:  # the calls recorded inside it, for a run of it at the next check
            self.calls.setdefault(k, []).append(c)
        self._same_at = (end, end.names, end.heap, (s.steps, s.meter.charges, s.next_id))

    def through(self, key: RunKey, run_function: Callable[[Node, dict[str, Value], Site | None], Value]) -> bool:
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
        previous = self.previous.get(key)
        if previous is None or not previous.trials or self.moved is not None or \
                self.tree is None or self.source is None:
            return False
        r = self._previous_run(key)
        changed = self._unread(r, True) if r is not None else None
        if r is None or not changed:
            return False
        source, tree = self.source, self.tree
        changed_ids = {id(n) for n in changed}
        if self.shift is not None:
            r = self._shifted_calls(r, changed_ids)
            if r is None:
                return False
        tried = [t for t in r.trials if id(t.node) in changed_ids]
        if {id(t.node) for t in tried} != changed_ids or not all(_root(n) is tree for n in changed):
            return False
        outer = Reads(r.ids_at)
        records: dict[int, CallRecord] = {}
        for t in tried:
            got = self._trial(t, outer, run_function)
            if got is None:
                return False
            records[id(t)] = got
        self._same.clear()
        self._same_at = ()
        # What the new calls read of the objects that existed before the run: where the run had not read one
        # first, it is the module's object now (the trial's heap is the last check's).
        before = dict(r.heap)
        end = self.s.module_state
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
        self._apply(key, kept, moved=True)
        return True

    def _shifted_calls(self, r: Replay, changed: set[int]) -> Replay | None:
        """The run's trials and inner calls moved by this check's line map (r itself is moved): None when a trial
        of a changed function cannot be; where another's cannot, every trial of its function is left out (a
        function's trials stand for its runs only all together: `_complete`; its next edit runs the run again), and
        an inner call that cannot is left out (it runs at a later full run of this one)."""
        shift = self.shift
        assert shift is not None
        trials: list[Trial] = []
        lost: set[int] = set()  # id() of the functions a trial of which could not be moved
        for t in r.trials:
            moved = shift_trial(shift, self._shifted, self._heaps, t)
            if moved is not None:
                # The functions being inlined around the call, as this tree's nodes: the splice may have made a
                # new node of a function after the changed lines (parso's diff parser), and a call compares them
                # by identity (recursion) and reads where they start (`_frame`).
                stack = tuple(self._node_now(n, shift) for n in moved.stack)
                callers = tuple((self._node_now(n, shift), w) for n, w in moved.callers)
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
            mc = shift_call(shift, self._shifted, c)
            if mc is not None:
                inner.append((nk, mc))
        return replace(r, trials=tuple(trials), inner=tuple(inner))

    def _node_now(self, node: Node, shift: Shifter) -> Node | None:
        """The node of this check's tree that stands for `node` of the last check's (None: none): itself when it is
        in the tree, else the node of its type (and name) at its place moved by the line map (a node the splice
        replaced keeps its parent and its places). Its code is compared elsewhere (the run's key for the function
        it is, its `bodies` for those it ran), and where each function around a call starts is part of the call's
        `where` (`_did_the_same`)."""
        tree = self.tree
        if tree is None:
            return None
        got = self._nodes_now.get(id(node))
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
        self._nodes_now[id(node)] = (node, found)
        return found

    def _trial(self, t: Trial, outer: Reads, run_function: Callable[[Node, dict[str, Value], Site | None], Value]
               ) -> CallRecord | None:
        """The call of `t` run again where it started, with its function's code now: its record, when it did
        what the recorded call did (else None). The session and this check's replays are left as they were."""
        s, imports = self.s, self.imports
        saved = (s.state, s.stack, s.callers, s.returns, s.via, s.loop_depth, s.steps, s.next_id, s.meter.work,
                 s.meter.charges, s.facts(), s.version_guarded, s.called, len(s.recorded), s.reads, s.stopped,
                 len(s.skipped), self.first_charges, self.ids, self._trials, self._inner, self._trying)
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
            self._trials, self._inner, self._trying = None, [], True
            given = dict(t.given)
            result = self.call(t.node, given, t.via, lambda: run_function(t.node, given, t.via))
            inner = self._inner
            if inner and inner[-1][1].result is result and s.stopped is None and \
                    inner[-1][0] == (self.source.key(t.node) if self.source is not None else None):
                record = inner[-1][1]
        finally:
            (s.state, s.stack, s.callers, s.returns, s.via, s.loop_depth, s.steps, s.next_id, s.meter.work,
             s.meter.charges) = saved[:10]
            s.set_facts(saved[10])
            s.version_guarded, s.called = saved[11], saved[12]
            del s.recorded[saved[13]:]
            s.reads, s.stopped = saved[14], saved[15]
            del s.skipped[saved[16]:]
            self.first_charges, self.ids, self._trials, self._inner, self._trying = saved[17:]
            if imports is not None and resolved is not None:
                imports.resolved.clear()
                imports.resolved.update(resolved)
                imports.modules_analysed = analysed
        if record is None or not _did_the_same(record, t.record):
            return None
        return record

    def start(self, key: RunKey) -> None:
        """Record the run about to start (the session's state is the module's)."""
        if not self.record:
            return
        s = self.s
        self._key = key
        s.reads = Reads(s.next_id)
        self._analysed_at = self.imports.modules_analysed if self.imports is not None else 0
        self._start = self._snapshot()
        # Where its calls start is kept at a keystroke only (at a buffer's first check every call runs).
        self._trials, self._inner = ([], []) if self.previous else (None, None)

    def _snapshot(self) -> Start:
        s = self.s
        return Start(s.facts(), tuple(s.module_state.names.items()), s.steps, s.next_id, s.meter.work,
                      s.meter.charges, len(s.recorded), frozenset(s.version_guarded), len(s.skipped))

    def finish(self) -> None:
        """The recorded run ended: keep it when a replay could stand for it (the docstring)."""
        s, reads, at, key = self.s, self.s.reads, self._start, self._key
        trials, inner = self._trials, self._inner
        s.reads, self._start, self._key, self._trials, self._inner = None, None, None, None, None
        if reads is None or at is None or key is None:
            return
        got = self._recorded(reads, at, self._analysed_at, key[0], s.module_state.heap, ())
        if got is not None:
            kept = _complete(trials, reads.bodies) if trials else ()
            self.runs[key] = replace(got, trials=kept, inner=tuple(inner or ())) if kept else got

    def _recorded(self, reads: Reads, at: Start, analysed_at: int, own: Key, heap: Heap,
                  more_roots: tuple[Value, ...]) -> Replay | None:
        """What a run that just ended read and did, when a replay could stand for it (None: it cannot)."""
        s, source = self.s, self.source
        if source is None:
            return None
        end = s.module_state.names
        # Past MAX_STEPS or half of MAX_WORK its inlining decisions read the budget: not a function of its reads.
        if reads.impure or s.stopped is not None or len(s.skipped) != at.skipped or len(end) != len(at.names) \
                or any(end.get(n) is not v for n, v in at.names) or s.steps > self.max_steps \
                or s.next_id > self.max_heap or s.meter.work > self.max_work // 2:
            return None
        effects: dict[int, HeapObj] = {}
        if reads.written or reads.resolutions or more_roots:
            roots: list[Value] = [Ref(i) for i in sorted(reads.written)]
            roots.extend(reads.resolutions.values())
            roots.extend(more_roots)
            # What the written objects and resolved values reach that the run made (the rest a replay keeps).
            effects = {i: o for i, o in sorted(reachable(heap, roots).items())
                       if i in reads.written or i >= reads.first_id}
        analysed = self.imports.modules_analysed if self.imports is not None else 0
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

    # -- inlined calls inside a recorded run ------------------------------------------------------------
    def call(self, node: Node, names: dict[str, Value], via: Site | None, run: Callable[[], Value]) -> Value:
        """An inlined call of `node` inside a recorded run (UserFunctions.inline): the value and what it did as a
        call recorded at the last check gave them, when it was given the same and all it read is the same
        (its run's reads are the enclosing run's too); else `run()`, recorded for the next check."""
        s, outer, source = self.s, self.s.reads, self.source
        if outer is None or source is None or not self.record or s.stopped is not None:
            return run()
        key = source.key(node)
        given = tuple(names.items())
        where = (s.state.path, s.via if s.via is not None else via, tuple(map(_frame, s.stack)), s.loop_depth)
        for c in self.previous_calls.get(key, ()):
            if self.shift is not None:
                moved_call = shift_call(self.shift, self._shifted, c)
                if moved_call is None:
                    continue
                c = moved_call
            if c.where == where and len(c.given) == len(given) and \
                    all(n == m and same(v, w) for (n, v), (m, w) in zip(c.given, given, strict=True)) and \
                    self._replay_call(node, c):
                self._keep_call(key, c)
                return c.result
        inner = Reads(s.next_id)
        at = self._snapshot()
        analysed_at = self.imports.modules_analysed if self.imports is not None else 0
        trials, start = self._trials, self._start
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
        got = self._recorded(inner, at, analysed_at, key, s.state.heap, (result,))
        record = CallRecord(given, where, got, result) if got is not None else None
        if record is not None:
            self._keep_call(key, record)
        if trying and trials is not None and start is not None:
            trials.append((node, None if record is None else Trial(
                node=node, given=given, via=via, base=base, own=own, path=where[0], stack=frames[0],
                callers=frames[1], session_via=frames[2], loop_depth=where[3], steps_in=at.steps - start.steps,
                work_in=at.work - start.work, charges_in=at.charges - start.charges, next_id=at.ids,
                facts=at.facts, guarded=at.guarded, record=record)))
        return result

    def _keep_call(self, key: Key, c: CallRecord) -> None:
        """A call recorded or replayed inside a recorded run: this check's (unless it is a `through` trial's), and
        the run's (`_inner`)."""
        if not self._trying:
            self.calls.setdefault(key, []).append(c)
        if self._inner is not None:
            self._inner.append((key, c))

    def _replay_call(self, node: Node, c: CallRecord) -> bool:
        """Put back what the recorded call did, when all it read is the same now and it starts at the heap id
        it started at (its value and objects keep their ids)."""
        r, s, source = c.run, self.s, self.source
        outer = s.reads
        if outer is None or source is None or s.next_id != r.ids_at or s.steps + r.steps > self.max_steps \
                or s.next_id + r.ids > self.max_heap or not facts_are(s, r.before):
            return False
        names, heap = s.module_state.names, s.state.heap
        moved = self.moved
        if moved is not None and any(moves(v, moved) for v in (*(v for _, v in c.given), *(v for _, v in r.names),
                                                                  *(v for _, v in r.forced), *(o for _, o in r.heap))):
            return False
        imports = self.imports
        resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
        if not all(same(names.get(n, ABSENT), v) for n, v in r.names) or \
                not all(same(resolved.get(k, ABSENT), v) for k, v in r.forced) or \
                any(k in resolved for k, _ in r.resolutions) or \
                (imports.modules_analysed if imports is not None else 0) != r.analysed_at or \
                not all(same(heap.get(i), o) for i, o in r.heap) or \
                not all(source.key(n) == k for n, k in r.bodies) or \
                any((self.method_node(cl, nm) if self.method_node is not None else None) is not f or
                    (f is not None and f.start_pos != at) for cl, nm, f, at in r.methods) or \
                any(deps.stamp(p) != st for p, st in r.stamps):
            return False
        if self.first_charges is None:
            self.first_charges = s.meter.charges
        self.ids = max(self.ids, r.ids_at + r.ids)
        s.recorded.extend(r.recorded)
        s.version_guarded.update(r.guarded)
        if r.changes_facts:
            s.set_facts(r.after)
        if r.called:
            s.called.update(id(n) for n in r.called)
        for i, o in r.effects:
            heap[i] = o
        if imports is not None:
            imports.resolved.update(r.resolutions)
            imports.modules_analysed += r.analysed
        s.steps += r.steps
        s.next_id += r.ids
        s.meter.work += r.work
        s.meter.charges += r.charges
        # The enclosing run read and did all this too (its own record must say so).
        merge(outer, r.names, r.heap, r.forced, [node, *(n for n, _ in r.bodies)], [*r.methods], [*r.called],
              {i for i, _ in r.effects if i < r.ids_at}, r.resolutions, r.stamps)
        return True

    # -- the budget argument, and this check's runs kept for the next -----------------------------------------
    def slack(self) -> int:
        """How far the meter of a run without replays can be from this one's (the docstring)."""
        if self.first_charges is None:
            return 0
        return 4 * max(self.ids, self.s.next_id) * (self.s.meter.charges - self.first_charges)

    def sound(self) -> bool:
        """Whether this check's analysis is the one a run without replays gives (the docstring)."""
        return self.first_charges is None or self.s.meter.work + self.slack() <= self.max_work // 2

    def keep(self) -> None:
        """Store this check's runs for the next check of the path (an editor buffer's: another analysis of the
        same path, e.g. a whole-file check, leaves them as they are)."""
        if self.source is None:
            return
        s = self.s
        small = s.meter.work + 4 * s.next_id * s.meter.charges <= self.max_work // 4
        calls = {k: tuple(v) for k, v in self.calls.items()} if small else {}
        keep(s.path, Document(self.fingerprint, self.runs if small else {}, small, calls, self.moves))


def _complete(trials: list[tuple[Node, Trial | None]], bodies: list[Node]) -> tuple[Trial, ...]:
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
    return new.where == old.where and same(new.result, old.result) and a.steps == b.steps and a.ids == b.ids \
        and a.charges == b.charges and a.ids_at == b.ids_at and not (a.resolutions or b.resolutions or a.stamps
                                                                      or b.stamps or a.analysed or b.analysed) \
        and a.before == b.before and a.after == b.after and set(a.guarded) == set(b.guarded) \
        and {id(n) for n in a.called} == {id(n) for n in b.called} \
        and len(a.recorded) == len(b.recorded) and all(same(x, y) for x, y in zip(a.recorded, b.recorded, strict=True)) \
        and len(a.effects) == len(b.effects) and all(i == j and same(o, p) for (i, o), (j, p) in
                                                     zip(a.effects, b.effects, strict=True))


def _frame(node: Node) -> tuple[str, str, Span]:
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


__all__ = ["Replays"]
