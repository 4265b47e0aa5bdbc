"""The removed-API reader's last answers per top-level function (engine/interpreter/removed_api.py, issue 31 item 2):
a keystroke changes one function, and the walk of every other one would give what it gave at the last check, its
places moved by the lines the edit added or removed. A function's walk reads its own nodes and the module's inputs
the walk is given: the target, the version guards' names, the imported cache classes, the model module names, the
module-wide flags of the recorded cache uses, and, where a read asks, the module's own names (own_names.py); and the
recorded cache uses inside its own lines. A module-level `def` (not in an `if` or a `try`: its conditions are outside
it), or a method of a module-level class with that class's header (name and bases: the constructor part reads them;
nothing else of its walk reads above it), whose lines' text, inputs and uses inside are the last check's (moved alike)
gets the last check's uses, moved (shift.py), instead of a walk.
Anything that cannot be moved (a place inside the changed lines) walks again. tests/engine/test_removed_reuse.py
compares every edit with a fresh check."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import RemovedApiUse
from hf_cache_lint.engine.interpreter.removed_calls import Defined
from hf_cache_lint.engine.interpreter.removed_members import Reads
from hf_cache_lint.engine.interpreter.removed_model_names import ModelModules
from hf_cache_lint.engine.interpreter.shift import Shifter, Unmapped
from hf_cache_lint.engine.interpreter.version_guard import VersionGuards
from hf_cache_lint.engine.syntax.line_map import LineMap
from hf_cache_lint.engine.syntax.nodes import Node, end_pos
from hf_cache_lint.engine.syntax.own_names import OwnNames

# What a walk gives: the uses, and for some of them (removed_api.py `functions`) the function each was found in.
Walked = tuple[list[RemovedApiUse], dict[int, object]]


class WatchedDefined(Defined):
    """The module's own names, noting whether a walk read them (most never do: then they are no input of it)."""

    read = False

    @property
    def names(self) -> OwnNames:
        self.read = True
        return super().names


@dataclass(frozen=True)
class _Run:
    """One function's walk at the last check."""

    first: int  # its first line then
    reads: tuple[tuple[tuple[int, int, str], object], ...]  # the recorded uses in its lines: (line - first, column, kind)
    defined: OwnNames | None  # the module's own names, when the walk read them
    uses: tuple[RemovedApiUse, ...]
    functions: tuple[int | None, ...]  # per use: the ordinal of the function it was found in, if noted


# The last check's inputs and its runs by the function's lines' text (one check's: a buffer's edits do not pile up).
_LAST_RUNS: tuple[tuple[object, ...], dict[str, _Run]] | None = None


def _forget_runs() -> None:
    global _LAST_RUNS
    _LAST_RUNS = None


process_state.resettable("engine/interpreter/removed_reuse.py", "_LAST_RUNS", _forget_runs)


def inputs(target: Target, guards: VersionGuards, classes: dict[str, tuple[str, str]],
           models: ModelModules | None, reads: Reads, words: Collection[str]) -> tuple[object, ...]:
    """The module-wide inputs of a function's walk, compared by value (`words`: what makes a function quiet)."""
    return (target, guards.version_text, frozenset(guards.modules), frozenset(guards.version_names),
            dict(guards.names), guards._versionless, guards._no_transformers, dict(classes),
            None if models is None else (dict(models.aliases), models.stored, models.words),
            bool(reads), frozenset(reads.names), reads.subscripts, reads.loops, tuple(words))


def top_level(node: Node) -> bool:
    """A `def` of the module itself (also decorated), not a method nor one under a condition."""
    parent = node.parent
    if parent is not None and parent.type == "decorated":
        parent = parent.parent
    return parent is not None and parent.type == "file_input"


def reuse_head(node: Node, heads: dict[int, str] | None = None) -> str | None:
    """What a walk of the `def` `node` reads outside its own lines besides the module-wide inputs, as text: "" for a
    module-level `def` (`top_level`); for a method (also decorated) of a class of the module itself (not under a
    condition), the class's header up to its colon: the constructor part reads the class's name and bases
    (constructor_calls.py `_owner`); None for any other `def` (not reused). `heads`: the headers already rendered
    in this walk, by the class node (the tree does not change during a check; a class of 60 methods renders once)."""
    if top_level(node):
        return ""
    parent = node.parent
    if parent is not None and parent.type == "decorated":
        parent = parent.parent
    owner = parent.parent if parent is not None and parent.type == "suite" else None
    if owner is None or owner.type != "classdef" or not top_level(owner):
        return None
    got = heads.get(id(owner)) if heads is not None else None
    if got is None:
        got = "".join(kid.get_code() for kid in owner.children[:-1]) + "\n"
        if heads is not None:
            heads[id(owner)] = got
    return got


class FunctionRuns:
    """This check's reuse of the last check's function walks."""

    def __init__(self, key: tuple[object, ...], reads: Reads, defined: WatchedDefined,
                 piece: Callable[[int, int], str]) -> None:
        last = _LAST_RUNS
        self._last = last[1] if last is not None and last[0] == key else {}
        self._key = key
        self._runs: dict[str, _Run] = {}
        self._defined = defined
        self._piece = piece  # the text of a function's lines, from its first to its last (removed_api.py `_Quiet`)
        entries: list[tuple[int, tuple[int, int, str], object]] = [
            (p.line, (p.line, p.column, where), r) for (p, where), r in reads.at.items()]
        entries.extend((p.line, (p.line, p.column, "call"), u) for p, u in reads.calls.items())
        entries.sort(key=lambda e: e[1])
        self._lines = [e[0] for e in entries]
        self._entries = entries

    def keep(self) -> None:
        """Keep this check's runs (only those) for the next check."""
        global _LAST_RUNS
        _LAST_RUNS = self._key, self._runs

    def uses(self, node: Node, walk: Callable[[], Walked], quiet: Callable[[Node, str], bool],
             head: str = "") -> Walked:
        """The function's uses and their functions: the last check's moved, else none where `quiet` says it can hold
        none (removed_api.py `_Quiet`: by the same text and inputs, the last check's answer), else `walk()`'s.
        `head`: what else the walk reads, as text (`reuse_head`: a method's class header), part of the run's key."""
        first, last = node.start_pos[0], end_pos(node)[0]
        text = self._piece(first, last)
        piece = head + text if head else text
        lines = self._lines
        reads: tuple[tuple[tuple[int, int, str], object], ...] = ()
        if lines:  # most modules record no read of a removed member
            lo, hi = bisect.bisect_left(lines, first), bisect.bisect_right(lines, last)
            reads = tuple(((line - first, column, kind), value)
                          for _, (line, column, kind), value in self._entries[lo:hi])
        old = self._last.get(piece)
        if old is not None:
            got = self._moved(old, first, reads, node)
            if got is not None:
                # Where it stood and what it read are the last check's: the same run (a new one equal to it else).
                self._runs[piece] = old if first == old.first else _Run(first, reads, old.defined, got[0],
                                                                        old.functions)
                return list(got[0]), got[1]
        if quiet(node, text):
            self._runs[piece] = _Run(first, reads, None, (), ())
            return [], {}
        self._defined.read = False
        found, functions = walk()
        ordinals: dict[object, int] = {}
        numbers = tuple(None if (f := functions.get(id(u))) is None else ordinals.setdefault(f, len(ordinals))
                        for u in found)
        self._runs[piece] = _Run(first, reads, self._defined.names if self._defined.read else None, tuple(found),
                                 numbers)
        return found, _tokens(node, found, numbers)

    def _moved(self, old: _Run, first: int, reads: tuple[tuple[tuple[int, int, str], object], ...],
               node: Node) -> tuple[tuple[RemovedApiUse, ...], dict[int, object]] | None:
        if old.defined is not None and old.defined != self._defined.names:
            return None
        delta = first - old.first
        if not delta:  # nothing moved: the same reads, by value, and the same uses (most functions at a keystroke)
            if old.reads != reads:
                return None
            return old.uses, _tokens(node, old.uses, old.functions) if old.uses else {}
        try:
            shifter = Shifter(LineMap(0, 0, delta)) if delta else None
            if [k for k, _ in old.reads] != [k for k, _ in reads] or any(
                    (v if shifter is None else shifter.map(v)) != w for (_, v), (_, w) in zip(old.reads, reads, strict=True)):
                return None
            uses = old.uses if shifter is None else tuple(shifter.map(u) for u in old.uses)
        except Unmapped:
            return None
        return uses, _tokens(node, uses, old.functions)


def _tokens(node: Node, uses: Any, numbers: tuple[int | None, ...]) -> dict[int, object]:
    """id() of each use -> a token of the function it was found in, one per function of this walk."""
    return {id(u): (id(node), n) for u, n in zip(uses, numbers, strict=True) if n is not None}
