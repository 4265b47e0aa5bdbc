"""What a recorded run (engine/interpreter/replay.py) is made of: what one run read from outside its locals
while it ran (`Reads`, filled by the session's hooks), the module-wide facts it may read or add to (`Facts`), and
what is kept of it for a replay at the next check (`Replay`; `CallRecord` for a call it inlined)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.environment.deps import Stamp
from hf_cache_lint.engine.interpreter.function_keys import Key
from hf_cache_lint.engine.interpreter.values import Cond, HeapObj, Setting, Value
from hf_cache_lint.engine.output.analysis import CiValue, GuardedBlock, Site
from hf_cache_lint.engine.syntax.nodes import Node

ABSENT = object()  # a name the module does not bind (a builtin, or unbound)
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
    names: dict[str, object] = field(default_factory=dict)  # module name -> its value (or ABSENT) when first read
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
    impure: bool = False  # did something a replay cannot repeat (replay.py's docstring)

    def name(self, name: str, value: object) -> None:
        self.names.setdefault(name, value)

    def obj(self, i: int, obj: HeapObj | None) -> None:
        if i < self.first_id:
            self.heap.setdefault(i, obj)


@dataclass(frozen=True)
class Replay:
    """One recorded run of an uncalled function (replay.py's docstring): what it read, then what it did."""

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
    # A top-level run's calls that ran (not replayed) inside it, each where it started (`Trial`), for every
    # function whose every run inside this one is such a call; and every call recorded inside it (its key and
    # record), kept for the next check when this run is replayed (replay.py `Replays.through`).
    trials: tuple[Trial, ...] = field(default=(), compare=False)
    inner: tuple[tuple[Key, CallRecord], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class CallRecord:
    """One inlined call inside a recorded run (UserFunctions.inline): what it was given besides what it read
    (its parameters and captured names as bound, the caller's path, the call site its facts name, the functions
    being inlined around it, the loop depth), the run itself (what it read and did), and the value it gave."""

    given: tuple[tuple[str, Value], ...]
    where: tuple[object, ...]
    run: Replay
    result: Value
    # The parameters it gave back with members stored on the caller's output (Session.written).
    written: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, eq=False)
class Trial:
    """An inlined call inside a recorded top-level run, as it started: the session's state there (the caller's
    path, names and heap: the heap's shared base is never changed once shared, its own part is copied), the
    functions being inlined and their call sites, the counters (steps, meter: since the run started; the next heap
    id), the facts and version-guarded blocks, what the call was given, and its record (`CallRecord`). Run again
    there with the function's new code, the call's record says whether the run around it did the same (the
    caller's locals are not kept: a call reads only what it is given, the heap and the module's names)."""

    node: Node
    given: tuple[tuple[str, Value], ...]
    via: Site | None  # the call site Replays.call was given
    base: dict[int, HeapObj]
    own: dict[int, HeapObj]
    path: tuple[Cond, ...]
    stack: tuple[Node, ...]
    callers: tuple[tuple[Node, object], ...]
    session_via: Site | None
    loop_depth: int
    steps_in: int
    work_in: int
    charges_in: int
    next_id: int
    facts: Facts
    guarded: frozenset[GuardedBlock]
    record: CallRecord


@dataclass(frozen=True)
class Start:
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


def absent() -> object:
    return ABSENT



def merge(outer: Reads, names: Iterable[tuple[str, object]], heap: Iterable[tuple[int, HeapObj | None]],
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


__all__ = ["ABSENT", "CallRecord", "Facts", "Method", "Reads", "Replay", "RunKey", "Start", "Trial", "absent", "merge"]
