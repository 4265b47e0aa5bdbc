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
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.deps import Stamp
from hf_cache_lint.engine.interpreter.function_keys import Key, Source
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.state import Heap, reachable
from hf_cache_lint.engine.interpreter.values import (
    CacheVal,
    ClassDef,
    Cond,
    ConfigState,
    Const,
    Function,
    HeapObj,
    Lazy,
    Output,
    Ref,
    Setting,
    Symbol,
    Unknown,
    Value,
    children,
)
from hf_cache_lint.engine.output.analysis import CiValue, GuardedBlock
from hf_cache_lint.engine.syntax import parsing
from hf_cache_lint.engine.syntax.nodes import Node

if TYPE_CHECKING:
    from hf_cache_lint.engine.interpreter.imports import WorkspaceImports
    from hf_cache_lint.engine.interpreter.session import Session

MAX_DOCUMENTS = 16  # documents whose last runs are kept (the buffers open in an editor)
_ABSENT = object()  # a name the module does not bind (a builtin, or unbound)
RunKey = tuple[Key, object]  # a function's key (function_keys.py) and what its run is given (Replays.key)
Method = tuple[Node, str, "Node | None", "tuple[int, int] | None"]  # Reads.methods: class, name, method found, its start


@dataclass(frozen=True)
class Facts:
    """The module-wide facts a function's run may read or add to (Session: env_set, custom_tasks,
    own_generate, saved, pending_ci, unsloth_fast_disabled)."""

    env_set: frozenset[str]
    custom_tasks: frozenset[str]
    own_generate: frozenset[str]
    saved: tuple[tuple[str, Setting | None], ...]
    pending_ci: tuple[tuple[Span, CiValue], ...]
    unsloth_fast_disabled: bool | None


@dataclass
class Reads:
    """What one run read from outside its locals, filled while it runs (Session's and the parts' hooks)."""

    first_id: int  # heap ids below this existed before the run
    names: dict[str, object] = field(default_factory=dict)  # module name -> its value (or _ABSENT) when first read
    heap: dict[int, HeapObj | None] = field(default_factory=dict)  # pre-existing id -> its object when first read
    bodies: list[Node] = field(default_factory=list)  # function nodes run
    # Methods looked up by name in a class (UserFunctions.method_of): the class node, the name, the method found
    # and where it started (a splice that adds lines moves the nodes after it: the same node, another place).
    methods: list[Method] = field(default_factory=list)
    called: list[Node] = field(default_factory=list)  # function nodes it inlined (Session.called)
    # Workspace imports it used that an earlier run of this check had resolved (imports.py), and their values.
    forced: dict[tuple[str, int, str], Value] = field(default_factory=dict)
    # What it changed that later functions may see: heap objects that existed before it (Session.put), the
    # workspace imports it resolved first, and the files those consulted (deps.stamp).
    written: set[int] = field(default_factory=set)
    resolutions: dict[tuple[str, int, str], Value] = field(default_factory=dict)
    stamps: dict[str, Stamp] = field(default_factory=dict)
    impure: bool = False  # did something a replay cannot repeat (the module docstring)

    def name(self, name: str, value: object) -> None:
        self.names.setdefault(name, value)

    def obj(self, i: int, obj: HeapObj | None) -> None:
        if i < self.first_id:
            self.heap.setdefault(i, obj)


@dataclass(frozen=True)
class Replay:
    """One recorded run of an uncalled function (the module docstring): what it read, then what it did."""

    names: tuple[tuple[str, object], ...]
    forced: tuple[tuple[tuple[str, int, str], Value], ...]
    heap: tuple[tuple[int, HeapObj | None], ...]
    bodies: tuple[tuple[Node, Key], ...]
    methods: tuple[Method, ...]  # a class, a method name, the method node it found, where that started
    path: tuple[Cond, ...]  # the module state's path conditions (a function's path starts from them)
    before: Facts
    ids_at: int  # the next heap id when it started
    steps: int
    ids: int
    work: int
    charges: int
    recorded: tuple[object, ...]  # the facts it recorded, of whatever kind (engine/facts), in order
    guarded: tuple[GuardedBlock, ...]
    after: Facts
    called: tuple[Node, ...]
    changes_facts: bool  # after != before (a replay of a run that did not change them leaves them as they are)
    # Its effects (Reads.written, .resolutions): the module heap's objects it left changed and the objects of its
    # own they reach, by id; the imports it resolved; the files consulted, and the count of modules analysed
    # before it and by it (imports.py's per-check bound). A run with effects is replayed only where it started
    # at the same heap id (so its objects keep the ids a run would give them).
    effects: tuple[tuple[int, HeapObj], ...] = ()
    resolutions: tuple[tuple[tuple[str, int, str], Value], ...] = ()
    stamps: tuple[tuple[str, Stamp], ...] = ()
    analysed_at: int = 0
    analysed: int = 0


@dataclass(frozen=True)
class CallRecord:
    """One inlined call inside a recorded run (UserFunctions.inline): what it was given besides what it read
    (its parameters and captured names as bound, the caller's path, the call site its facts name, the functions
    being inlined around it, the loop depth), the run itself (what it read and did), and the value it gave."""

    given: tuple[tuple[str, Value], ...]
    where: tuple[object, ...]
    run: Replay
    result: Value


@dataclass(frozen=True)
class _Start:
    """The session as a recorded run started (what finish() compares with and subtracts)."""

    facts: Facts
    names: tuple[tuple[str, Value], ...]
    steps: int
    ids: int
    work: int
    charges: int
    recorded: int
    guarded: frozenset[GuardedBlock]
    skipped: int


@dataclass
class Document:
    """One path's last check: its session fingerprint and the runs it recorded, by function (position, code)."""

    fingerprint: tuple[object, ...]
    runs: dict[RunKey, Replay]
    # Whether that check's meter, with the slack of replaying all of it, stayed under MAX_WORK // 4: only then
    # are replays tried (a module analysed near its budget would be analysed twice: see the docstring).
    small: bool
    # The inlined calls recorded inside those runs, by the called function's key (Replays.call).
    calls: dict[Key, tuple[CallRecord, ...]] = field(default_factory=dict)
    moves: tuple[int, int] = (0, 1)  # the parser's count of line-count changes after its parse (`moved_from`)


_DOCUMENTS: OrderedDict[str, Document] = OrderedDict()


def document(path: str) -> Document | None:
    """The path's last check (None the first time a path is checked: a file checked once records nothing)."""
    got = _DOCUMENTS.get(path)
    if got is not None:
        _DOCUMENTS.move_to_end(path)
    return got


def keep(path: str, doc: Document) -> None:
    _DOCUMENTS[path] = doc
    _DOCUMENTS.move_to_end(path)
    while len(_DOCUMENTS) > MAX_DOCUMENTS:
        _DOCUMENTS.popitem(last=False)


def forget(path: str) -> None:
    """Drop the path's last check (its kept tree went: the parser's count of line-count changes starts again, so a
    count one higher would no longer say that only the last update's line map lies between that check and the
    next one)."""
    _DOCUMENTS.pop(path, None)


def forget_all() -> None:
    """Drop every recorded run (tests compare analyses with and without replays)."""
    _DOCUMENTS.clear()


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


# Values and heap objects that cannot hold a function or class (no value inside them can).
_NO_NODES = (Unknown, Const, CacheVal, Ref, Symbol, Output, Lazy, ConfigState)


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


def _moves(x: object, line: int) -> bool:
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


def absent() -> object:
    return _ABSENT


def _facts_are(s: Session, f: Facts) -> bool:
    """`s.facts() == f`, field by field without building the session's Facts (a set equals the frozenset of
    its items; the tuples of items as facts() builds them)."""
    return f.env_set == s.env_set and f.custom_tasks == s.custom_tasks and f.own_generate == s.own_generate \
        and f.unsloth_fast_disabled == s.unsloth_fast_disabled \
        and f.saved == tuple(s.saved.items()) and f.pending_ci == tuple(s.pending_ci.items())


def _merge(outer: Reads, names: Iterable[tuple[str, object]], heap: Iterable[tuple[int, HeapObj | None]],
           forced: Iterable[tuple[tuple[str, int, str], Value]], bodies: Iterable[Node],
           methods: Iterable[Method], called: Iterable[Node], written: Iterable[int],
           resolutions: Iterable[tuple[tuple[str, int, str], Value]], stamps: Iterable[tuple[str, Stamp]]) -> None:
    """What an inlined call read and did, into the reads of the run around it (first reads stay first; what the
    call read of the enclosing run's own objects or resolutions is not the enclosing run's read)."""
    for n, v in names:
        outer.names.setdefault(n, v)
    for i, o in heap:
        if i < outer.first_id:
            outer.heap.setdefault(i, o)
    for k, v in forced:
        if k not in outer.resolutions:
            outer.forced.setdefault(k, v)
    outer.bodies.extend(bodies)
    outer.methods.extend(methods)
    outer.called.extend(called)
    outer.written.update(i for i in written if i < outer.first_id)
    outer.resolutions.update(resolutions)
    for p, st in stamps:
        outer.stamps.setdefault(p, st)


_K = TypeVar("_K")
_V = TypeVar("_V")


def _rekeyed(runs: Mapping[_K, _V], move: Callable[[_K], _K]) -> dict[_K, _V]:
    """The last check's runs (or calls) under where their functions stand now (those inside the changed lines
    are dropped: their code changed)."""
    out: dict[_K, _V] = {}
    for k, v in runs.items():
        try:
            out[move(k)] = v
        except Unmapped:
            continue
    return out


class Replays:
    """The replays of one check: `replay` a recorded run when everything it read is the same, else `start`
    recording one, `finish` it; `sound` at the end says whether the budget argument holds (the docstring);
    `keep` stores this check's runs for the next one."""

    def __init__(self, session: Session, source: Source | None, previous: Document | None,
                 fingerprint: tuple[object, ...], use: bool, max_steps: int, max_heap: int, max_work: int,
                 imports: WorkspaceImports | None = None,
                 method_node: Callable[[Node, str], Node | None] | None = None) -> None:
        self.s = session
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
            self.previous = _rekeyed(self.previous, lambda k: (shift.key(k[0]), k[1]))
            self.previous_calls = _rekeyed(self.previous_calls, shift.key)
        self._shifted: dict[int, Replay | CallRecord | None] = {}  # by id() of the recorded run or call
        self.runs: dict[RunKey, Replay] = {}
        self.calls: dict[Key, list[CallRecord]] = {}
        self.max_steps, self.max_heap, self.max_work = max_steps, max_heap, max_work
        self.first_charges: int | None = None  # the meter's charges when the first replay was made
        self.ids = 0  # the most ids any replayed recording had allocated when it ended
        self._key: RunKey | None = None
        self._start: _Start | None = None
        self._analysed_at = 0  # imports.modules_analysed when the recorded run started
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
        r = self.previous.get(key)
        s = self.s
        if r is not None and self.shift is not None:
            r = self._moved_run(r)
        if r is None or s.steps + r.steps > self.max_steps or s.next_id + r.ids > self.max_heap:
            return False
        assert self.source is not None  # as for every key
        source = self.source
        end = s.module_state
        if end.path != r.path or not _facts_are(s, r.before):
            return False
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
                got = memo[(n, id(v))] = same(end.names.get(n, _ABSENT), v) and \
                    (moved is None or not _moves(v, moved))
            if not got:
                self._same_at = at
                return False
        imports = self.imports
        resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
        for k, v in r.forced:
            if not same(resolved.get(k, _ABSENT), v) or (moved is not None and _moves(v, moved)):
                self._same_at = at
                return False
        effectful = bool(r.effects or r.resolutions)
        if effectful and (s.next_id != r.ids_at or any(k in resolved for k, _ in r.resolutions)
                          or (imports.modules_analysed if imports is not None else 0) != r.analysed_at
                          or any(deps.stamp(p) != st for p, st in r.stamps)):
            self._same_at = at
            return False
        for i, o in r.heap:
            got = memo.get((i, id(o)))
            if got is None:
                got = memo[(i, id(o))] = same(end.heap.get(i), o) and (moved is None or not _moves(o, moved))
            if not got:
                self._same_at = at
                return False
        if not all(source.key(n) == k for n, k in r.bodies):
            self._same_at = at
            return False
        lookup = self.method_node
        for cls, name, found, where in r.methods:
            # The same node object, where it was: a run that runs it records its body (position and code) too.
            if (lookup(cls, name) if lookup is not None else None) is not found or \
                    (found is not None and found.start_pos != where):
                self._same_at = at
                return False
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
            memo.clear()  # the module's heap changed
        s.steps += r.steps
        s.next_id += r.ids
        s.meter.work += r.work
        s.meter.charges += r.charges
        self.runs[key] = r
        self._same_at = (end, end.names, end.heap, (s.steps, s.meter.charges, s.next_id))
        return True

    def start(self, key: RunKey) -> None:
        """Record the run about to start (the session's state is the module's)."""
        if not self.record:
            return
        s = self.s
        self._key = key
        s.reads = Reads(s.next_id)
        self._analysed_at = self.imports.modules_analysed if self.imports is not None else 0
        self._start = self._snapshot()

    def _snapshot(self) -> _Start:
        s = self.s
        return _Start(s.facts(), tuple(s.module_state.names.items()), s.steps, s.next_id, s.meter.work,
                      s.meter.charges, len(s.recorded), frozenset(s.version_guarded), len(s.skipped))

    def finish(self) -> None:
        """The recorded run ended: keep it when a replay could stand for it (the docstring)."""
        s, reads, at, key = self.s, self.s.reads, self._start, self._key
        s.reads, self._start, self._key = None, None, None
        if reads is None or at is None or key is None:
            return
        got = self._recorded(reads, at, self._analysed_at, key[0], s.module_state.heap, ())
        if got is not None:
            self.runs[key] = got

    def _recorded(self, reads: Reads, at: _Start, analysed_at: int, own: Key, heap: Heap,
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
    def call(self, node: Node, names: dict[str, Value], via: object, run: Callable[[], Value]) -> Value:
        """An inlined call of `node` inside a recorded run (UserFunctions.inline): the value and what it did as a
        call recorded at the last check gave them, when it was given the same and all it read is the same
        (its run's reads are the enclosing run's too); else `run()`, recorded for the next check."""
        s, outer, source = self.s, self.s.reads, self.source
        if outer is None or source is None or not self.record or s.stopped is not None:
            return run()
        key = source.key(node)
        given = tuple(names.items())
        where = (s.state.path, s.via if s.via is not None else via, tuple(map(id, s.stack)), s.loop_depth)
        for c in self.previous_calls.get(key, ()):
            if self.shift is not None:
                moved_call = self._moved_call(c)
                if moved_call is None:
                    continue
                c = moved_call
            if c.where == where and len(c.given) == len(given) and \
                    all(n == m and same(v, w) for (n, v), (m, w) in zip(c.given, given, strict=True)) and \
                    self._replay_call(node, c):
                self.calls.setdefault(key, []).append(c)
                return c.result
        inner = Reads(s.next_id)
        at = self._snapshot()
        analysed_at = self.imports.modules_analysed if self.imports is not None else 0
        s.reads = inner
        try:
            result = run()
        finally:
            s.reads = outer
            _merge(outer, inner.names.items(), inner.heap.items(), inner.forced.items(), inner.bodies,
                   inner.methods, inner.called, inner.written, inner.resolutions.items(), inner.stamps.items())
            outer.impure = outer.impure or inner.impure
        got = self._recorded(inner, at, analysed_at, key, s.state.heap, (result,))
        if got is not None:
            self.calls.setdefault(key, []).append(CallRecord(given, where, got, result))
        return result

    def _replay_call(self, node: Node, c: CallRecord) -> bool:
        """Put back what the recorded call did, when all it read is the same now and it starts at the heap id
        it started at (its value and objects keep their ids)."""
        r, s, source = c.run, self.s, self.source
        outer = s.reads
        if outer is None or source is None or s.next_id != r.ids_at or s.steps + r.steps > self.max_steps \
                or s.next_id + r.ids > self.max_heap or not _facts_are(s, r.before):
            return False
        names, heap = s.module_state.names, s.state.heap
        moved = self.moved
        if moved is not None and any(_moves(v, moved) for v in (*(v for _, v in c.given), *(v for _, v in r.names),
                                                                   *(v for _, v in r.forced), *(o for _, o in r.heap))):
            return False
        imports = self.imports
        resolved: Mapping[tuple[str, int, str], Value] = imports.resolved if imports is not None else {}
        if not all(same(names.get(n, _ABSENT), v) for n, v in r.names) or \
                not all(same(resolved.get(k, _ABSENT), v) for k, v in r.forced) or \
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
        _merge(outer, r.names, r.heap, r.forced, [node, *(n for n, _ in r.bodies)], [*r.methods], [*r.called],
               {i for i, _ in r.effects if i < r.ids_at}, r.resolutions, r.stamps)
        return True

    # -- a line map: what the last check recorded, moved to where it stands now -------------------------------
    def _moved_run(self, r: Replay) -> Replay | None:
        """The recorded run with every place it holds moved by this check's line map (None: one is inside the
        changed lines, shift.py); once per run and check."""
        got = self._shifted.get(id(r), r)
        if got is not r:
            return got  # type: ignore[return-value]
        shift = self.shift
        assert shift is not None
        try:
            m = shift.map
            before = m(r.before)
            moved: Replay | None = replace(
                r, names=shift.pairs(r.names), forced=shift.pairs(r.forced), heap=shift.pairs(r.heap),
                bodies=tuple((n, shift.key(k)) for n, k in r.bodies),
                methods=tuple((c, name, f, shift.start(at) if at is not None else None) for c, name, f, at in r.methods),
                path=m(r.path), before=before, recorded=m(r.recorded), guarded=m(r.guarded),
                after=m(r.after) if r.changes_facts else before, effects=shift.pairs(r.effects),
                resolutions=shift.pairs(r.resolutions))
        except Unmapped:
            moved = None
        self._shifted[id(r)] = moved
        return moved

    def _moved_call(self, c: CallRecord) -> CallRecord | None:
        """An inlined call's record moved as `_moved_run` moves a run."""
        got = self._shifted.get(id(c), c)
        if got is not c:
            return got  # type: ignore[return-value]
        shift = self.shift
        assert shift is not None
        run = self._moved_run(c.run)
        moved: CallRecord | None = None
        if run is not None:
            try:
                moved = CallRecord(shift.pairs(c.given), shift.map(c.where), run, shift.map(c.result))
            except Unmapped:
                moved = None
        self._shifted[id(c)] = moved
        return moved

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


__all__ = ["Document", "Facts", "Reads", "Replay", "Replays", "absent", "document", "fingerprint", "forget",
           "forget_all", "keep", "same"]


process_state.resettable("engine/interpreter/replay.py", "_DOCUMENTS", forget_all)
