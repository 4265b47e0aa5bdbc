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

The budget: steps and ids are counted exactly (a replay adds the recorded figures). The meter is not: it
counts state sizes, and the objects a replay leaves out make the heap smaller. Every charge of the meter
is the size of a few names (the same either way) plus at most 4x the ids allocated so far (a heap holds only
allocated ids: base and own each at most that many, a join of two heaps twice that); so after the first
replay the meter of a run without replays is within `4 * ids * charges` of this one's (`slack`). As long as
this one's meter plus that slack stays at or under MAX_WORK // 2, no decision of either run reads a different
answer from the meter (inlining stops past MAX_WORK // 2, the analysis past MAX_WORK), and the analysis is
the one a run without replays would give; past it, the module is analysed again without replays
(Interpreter.run_module).

Here: `Replays`, the replays of one check: a top-level run replayed (`replay`) or recorded (`start`,
`finish`), what it did put back (`apply`), the budget argument (`slack`, `sound`) and this check's runs kept
for the next (`keep`). Recording a run and what stops it being recorded: replay_recording.py; the calls a
recorded run inlines, replayed or recorded one by one: replay_calls.py; a run replayed through the calls of
edited functions run again: replay_through.py; what a recorded run is made of: replay_records.py; how one is
matched to this check (values, nodes, facts, the line map): replay_matching.py; the process-wide store:
replay_store.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.interpreter import replay_calls, replay_through
from hf_cache_lint.engine.interpreter.function_keys import Key, Source
from hf_cache_lint.engine.interpreter.replay_matching import (
    facts_are,
    moved_from,
    moves,
    rekeyed,
    same,
    shift_run,
)
from hf_cache_lint.engine.interpreter.replay_recording import complete, recorded, snapshot
from hf_cache_lint.engine.interpreter.replay_records import (
    ABSENT,
    CallRecord,
    Reads,
    Replay,
    RunKey,
    Start,
    Trial,
)
from hf_cache_lint.engine.interpreter.replay_store import Document, keep
from hf_cache_lint.engine.interpreter.replay_through import RunFunction
from hf_cache_lint.engine.interpreter.shift import Shifter
from hf_cache_lint.engine.interpreter.state import Heap
from hf_cache_lint.engine.interpreter.values import HeapObj, Value
from hf_cache_lint.engine.output.analysis import Site
from hf_cache_lint.engine.syntax import parsing
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
    from hf_cache_lint.engine.interpreter.session import Session


_UNSTAMPED = object()  # Replays._stamp: a path not stamped yet in this check


class Replays:
    """The replays of one check: `replay` a recorded run when everything it read is the same, or `through` the
    calls of edited functions it inlined (replay_through.py), else `start` recording one, `finish` it (`call`: a
    call it inlines, replay_calls.py); `sound` at the end says whether the budget argument holds (the
    docstring); `keep` stores this check's runs for the next one."""

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
        self.shifted: dict[int, Replay | CallRecord | None] = {}  # by id() of the recorded run or call
        self.heaps: dict[int, tuple[dict[int, HeapObj], dict[int, HeapObj]]] = {}  # trials' bases moved
        # By id() of the last check's node (replay_through._node_now).
        self.nodes_now: dict[int, tuple[Node, Node | None]] = {}
        self.runs: dict[RunKey, Replay] = {}
        self.calls: dict[Key, list[CallRecord]] = {}
        self.max_steps, self.max_heap, self.max_work = max_steps, max_heap, max_work
        self.limits = (max_steps, max_heap, max_work)  # as replay_recording.recorded takes them
        self.first_charges: int | None = None  # the meter's charges when the first replay was made
        self.ids = 0  # the most ids any replayed recording had allocated when it ended
        self._key: RunKey | None = None
        self.run_start: Start | None = None
        self._analysed_at = 0  # imports.modules_analysed when the recorded run started
        # While a top-level run is recorded at a keystroke (not a buffer's first check, where every call runs):
        # each call run inside it, where it started (`Trial`; None: its run could not be recorded), and every
        # call recorded inside it. `trying`: a call runs again where it started (`through`); what it records
        # is not this check's.
        self.trials: list[tuple[Node, Trial | None]] | None = None
        self.inner: list[tuple[Key, CallRecord]] | None = None
        self.trying = False
        # What the replays of this check found of what the recorded runs read (`_same_name`, `_same_object`: by module
        # name or heap id and id() of the recorded value, with both objects; `_changed`, `_same_method`, `_stamp`).
        self._same: dict[tuple[object, int], tuple[object, object, bool]] = {}  # `_compare`
        self._bodies: dict[tuple[int, int], tuple[Key, bool]] = {}
        self._methods: dict[tuple[int, str, int, tuple[int, int] | None], tuple[Node, Node | None, bool]] = {}
        self._stamps: dict[str, object] = {}

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
        r = self.previous_run(key)
        if r is None or self.unread(r, False) is None:
            return False
        self.apply(key, r)
        return True

    def previous_run(self, key: RunKey) -> Replay | None:
        """The run recorded under `key` at the last check (moved by the line map), when the budget has room for it."""
        r = self.previous.get(key)
        s = self.s
        if r is not None and self.shift is not None:
            r = shift_run(self.shift, self.shifted, r)
        if r is None or s.steps + r.steps > self.max_steps or s.next_id + r.ids > self.max_heap:
            return None
        return r

    def unread(self, r: Replay, bodies_may_change: bool) -> list[Node] | None:
        """None when something the recorded run read is not the same now; else the functions it ran whose code
        changed since (`bodies_may_change`; otherwise that is a difference too)."""
        assert self.source is not None  # as for every key
        s = self.s
        end = s.module_state
        if end.path != r.path or not facts_are(s, r.before):
            return None
        if not self._same_in(r.names, end.names):
            return None
        imports = self.imports
        resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
        if r.forced and not self._same_in(r.forced, resolved):
            return None
        if (r.effects or r.resolutions) and (
                s.next_id != r.ids_at or any(k in resolved for k, _ in r.resolutions)
                or (imports.modules_analysed if imports is not None else 0) != r.analysed_at
                or any(self._stamp(p) != st for p, st in r.stamps)):
            return None
        if not self._same_on_heap(r.heap, end.heap):
            return None
        changed = [n for n, k in r.bodies if self._changed(n, k)]
        if changed and not bodies_may_change:
            return None
        if not all(map(self._same_method, r.methods)):
            return None
        return changed

    # What the replays of this check found of what the recorded runs read. The runs recorded in one check read the
    # same module objects, so the first replay compares a recorded value with the module's and the others find the
    # answer; each answer is kept with the module's object it was found for (values and heap objects are frozen,
    # and `same` does not follow refs), and holds while the module's name, heap id or resolved import holds that
    # same object: a run in between (the edited function, a class's shared instance set up, a replay's effects put
    # back) leaves the other answers standing (until 31u every run cleared them all: ~4 times a keystroke on
    # generation/utils.py, ~340 values compared again).
    def _same_in(self, items: tuple[tuple[Any, object], ...], table: Mapping[Any, object]) -> bool:
        """Each recorded (module name or resolved import, value) `same` as what `table` holds now (`_compare`)."""
        memo = self._same
        for k, v in items:
            now = table.get(k, ABSENT)
            got = memo.get((k, id(v)))
            if got is None or got[0] is not v or got[1] is not now:
                got = self._compare(k, now, v)
            if not got[2]:
                return False
        return True

    def _same_on_heap(self, items: tuple[tuple[int, HeapObj | None], ...], heap: Heap) -> bool:
        """Each recorded (heap id, object) `same` as what the module's heap holds now (`_compare`)."""
        memo = self._same
        for i, o in items:
            now = heap.get(i)
            got = memo.get((i, id(o)))
            if got is None or got[0] is not o or got[1] is not now:
                got = self._compare(i, now, o)
            if not got[2]:
                return False
        return True

    def _compare(self, key: object, now: object, recorded: object) -> tuple[object, object, bool]:
        """`same(now, recorded)`, and nothing in `recorded` moved, kept by (module name, heap id or import) and id()
        of the recorded value with both objects."""
        moved = self.moved
        got = self._same[(key, id(recorded))] = \
            (recorded, now, same(now, recorded) and (moved is None or not moves(recorded, moved)))
        return got

    def _changed(self, node: Node, key: Key) -> bool:
        """Whether the code or place of a function a recorded run ran differs from `key`, what it recorded (the
        tree does not change while it is analysed: once per node and recorded key and check)."""
        got = self._bodies.get((id(node), id(key)))
        if got is not None and got[0] is key:
            return got[1]
        assert self.source is not None
        answer = self.source.key(node) != key
        self._bodies[(id(node), id(key))] = (key, answer)
        return answer

    def _same_method(self, item: tuple[Node, str, Node | None, tuple[int, int] | None]) -> bool:
        """The same node object, where it was: a run that runs it records its body (position and code) too. Once per
        class, name, node and place and check (the tree does not change while it is analysed)."""
        cls, name, found, where = item
        key = (id(cls), name, id(found), where)
        got = self._methods.get(key)
        if got is not None and got[0] is cls and got[1] is found:
            return got[2]
        lookup = self.method_node
        answer = (lookup(cls, name) if lookup is not None else None) is found and \
            (found is None or found.start_pos == where)
        self._methods[key] = (cls, found, answer)
        return answer

    def _stamp(self, path: str) -> deps.Stamp:
        """deps.stamp once per path and check (the replays of one check ask again for the files their imports
        consulted)."""
        got = self._stamps.get(path, _UNSTAMPED)
        if got is _UNSTAMPED:
            got = self._stamps[path] = deps.stamp(path)
        return got  # type: ignore[return-value]

    def apply(self, key: RunKey, r: Replay, moved: bool = False) -> None:
        """Put back what the recorded run did (its reads are the same now: `unread`; `moved`: its trials and
        inner calls are this check's places)."""
        s = self.s
        end = s.module_state
        if r.trials and not moved and (self.moved is not None or self.shift is not None):
            r = replace(r, trials=(), inner=())  # where its calls started moved: not kept
        self.put_back(r, end.heap)
        self.runs[key] = r
        for k, c in r.inner:  # the calls recorded inside it, for a run of it at the next check
            self.calls.setdefault(k, []).append(c)

    def put_back(self, r: Replay, heap: Heap) -> None:
        """Put back on the session what a recorded run or call did, its objects on `heap` (what it read is the
        same now). A run's count of modules analysed is only ever that of imports it resolved: a run with no
        effects adds 0."""
        s, imports = self.s, self.imports
        if self.first_charges is None:
            self.first_charges = s.meter.charges
        self.ids = max(self.ids, r.ids_at + r.ids)
        s.recorded.extend(r.recorded)
        s.version_guarded.update(r.guarded)
        # Else the session's are r.before's (`unread` and `replay_call` checked), which are r.after's.
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

    def forget_compared(self) -> None:
        """Forget what the replays found of recorded values (a call was run again on the last check's heap: the
        answers are checked against the module's objects anyway)."""
        self._same.clear()

    def through(self, key: RunKey, run_function: RunFunction) -> bool:
        """Record again what the run recorded under `key` did, through the calls of the functions it inlined
        whose code changed, run again where they started (replay_through.py)."""
        return replay_through.through(self, key, run_function)

    def call(self, node: Node, names: dict[str, Value], via: Site | None, run: Callable[[], Value]) -> Value:
        """An inlined call of `node` inside a recorded run (UserFunctions.inline): replayed or run and recorded
        (replay_calls.py)."""
        return replay_calls.call(self, node, names, via, run)

    def start(self, key: RunKey) -> None:
        """Record the run about to start (the session's state is the module's)."""
        if not self.record:
            return
        s = self.s
        self._key = key
        s.reads = Reads(s.next_id)
        self._analysed_at = self.imports.modules_analysed if self.imports is not None else 0
        self.run_start = snapshot(s)
        # Where its calls start is kept at a keystroke only (at a buffer's first check every call runs).
        self.trials, self.inner = ([], []) if self.previous else (None, None)

    def finish(self) -> None:
        """The recorded run ended: keep it when a replay could stand for it (replay_recording.py)."""
        s, reads, at, key = self.s, self.s.reads, self.run_start, self._key
        trials, inner = self.trials, self.inner
        s.reads, self.run_start, self._key, self.trials, self.inner = None, None, None, None, None
        if reads is None or at is None or key is None:
            return
        got = recorded(s, self.source, self.imports, self.limits, reads, at, self._analysed_at, key[0],
                       s.module_state.heap, ())
        if got is not None:
            kept = complete(trials, reads.bodies) if trials else ()
            self.runs[key] = replace(got, trials=kept, inner=tuple(inner or ())) if kept else got

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

