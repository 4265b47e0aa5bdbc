"""What a recorded run (engine/interpreter/replay.py) holds of places in the text, moved by a line map
(engine/syntax/line_map.py): after Enter or a line join, a function whose code did not change and whose inputs,
moved the same way, are the module's now is replayed with its facts, effects and values moved, instead of being
run again. A run of the same code from the same inputs, `delta` lines further down, gives the same results with
every place in this file `delta` lines further down: parsing never reads a line number, and the interpreter only
copies positions out of nodes and compares them with each other (the map keeps their order).

The walk is generic (the engine's facts, values and heap objects are frozen dataclasses, named tuples and tuples
of them; fact kinds are not named here): each `Span` is mapped, a `Site` or fact with a `path` (another file's)
is kept as it is, a field that does not take part in equality (a `Function`'s parso node, which is the same
object moved by the splice, a dict's key index) is kept, and anything else that is not a plain constant refuses
(`Unmapped`), as does a place inside the changed lines: that run is run again. A field annotated with constants only
(`str`, `Literal[...]`, `frozenset[str]`; mypy --strict holds the code to its annotations) is not walked.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass
from typing import Any, TypeVar

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.syntax.line_map import LineMap, Unmapped

_T = TypeVar("_T")
_K = TypeVar("_K")
Key = tuple[tuple[int, int], str]

# Objects that hold no place: kept as they are (`object`: replay_records.py's sentinel for a name the module lacks).
_PLAIN = frozenset({str, int, float, bool, complex, bytes, type(None), object})


@dataclass(frozen=True)
class _Shape:
    """How a type's objects are walked: the fields a copy maps (dataclasses: those taking part in equality; a named
    tuple: its items, `named`), and whether a copy may be made by copying the instance's `__dict__` (a dataclass
    with neither `__slots__` nor `__post_init__`: what `dataclasses.replace` would build, without its checks)."""

    fields: tuple[str, ...]  # of a dataclass: only those whose annotations allow a place (not `str`, `frozenset[str]`)
    named: bool = False
    plain_copy: bool = False
    has_path: bool = False  # a `path` field: set (a str), the object is another file's
    plain: bool = False  # no field can hold a place (`Symbol`, `Cond`): nothing to move


# The annotations of a field that holds no place: constants, and unions and literals of them.
_PLAIN_HINTS = frozenset({str, int, float, bool, complex, bytes, type(None)})


def _plain_hint(hint: object) -> bool:
    try:
        if hint in _PLAIN_HINTS:
            return True
    except TypeError:  # an unhashable annotation object: not one of them
        return False
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return True
    if origin is typing.Union or origin is types.UnionType or origin in (tuple, frozenset):
        return all(a is Ellipsis or _plain_hint(a) for a in typing.get_args(hint))
    return False


def _placed_fields(t: type, names: tuple[str, ...]) -> tuple[str, ...]:
    """The fields whose annotations say they may hold a place (all of them when the annotations cannot be read)."""
    try:
        hints = typing.get_type_hints(t)
    except Exception:  # an annotation naming what its module does not bind at run time
        return names
    return tuple(name for name in names if name not in hints or not _plain_hint(hints[name]))


# Per type: its shape, None for a type nothing here knows (it refuses).
_FIELDS: dict[type, _Shape | None] = {}


def _shape_of(t: type) -> _Shape | None:
    if t in _FIELDS:
        return _FIELDS[t]
    found: _Shape | None = None
    if dataclasses.is_dataclass(t):
        placed = _placed_fields(t, tuple(f.name for f in dataclasses.fields(t) if f.compare))
        found = _Shape(placed, plain_copy=not hasattr(t, "__slots__") and not hasattr(t, "__post_init__"),
                       has_path="path" in {f.name for f in dataclasses.fields(t)}, plain=not placed)
    elif issubclass(t, tuple) and hasattr(t, "_fields"):
        found = _Shape((), named=True)
    _FIELDS[t] = found
    return found


class Shifter:
    """One check's moves of what the last check recorded (memoised by object: the recorded runs of one check
    share the module's values, and replay.py compares them by identity first)."""

    def __init__(self, lines: LineMap) -> None:
        self.lines = lines
        self._head = lines.head
        self._tail = lines.old_end + 1  # the first old line of the tail (all of it moves by the delta)
        self._memo: dict[int, tuple[object, object]] = {}

    def key(self, key: Key) -> Key:
        """A function's key (function_keys.py: where it starts, its code) where the function now starts."""
        (line, column), code = key
        return (self.lines.line(line), column), code

    def start(self, at: tuple[int, int]) -> tuple[int, int]:
        return self.lines.start(*at)

    def span(self, span: Span) -> Span:
        end = span.end
        if end.line <= self._head:  # wholly before the changed lines (an end at column 0 reads the line before)
            return span
        start = span.start
        if start.line >= self._tail and (end.column or end.line > self._tail):  # wholly in the tail
            d = self.lines.delta
            return Span(Position(start.line + d, start.column), Position(end.line + d, end.column))
        return self.lines.span(span)

    def map(self, x: _T) -> _T:
        """`x` with every place of this file in it moved (itself when none moved). Raises Unmapped."""
        t = type(x)
        if t in _PLAIN:
            return x
        if t is Span:
            return self.span(x)  # type: ignore[arg-type, return-value]
        got = self._memo.get(id(x))
        if got is not None and got[0] is x:
            return got[1]  # type: ignore[return-value]
        out = self._walk(x, t)
        self._memo[id(x)] = (x, out)
        return out  # type: ignore[no-any-return]

    def pairs(self, items: tuple[tuple[_K, _T], ...]) -> tuple[tuple[_K, _T], ...]:
        """(key, value) pairs (a run's reads: module names, heap ids, imports) with their values moved (keys hold
        no place); the same tuple when none moved."""
        out: list[tuple[_K, _T]] | None = None
        for i, (k, v) in enumerate(items):
            m = v if type(v) in _PLAIN else self.map(v)
            if m is not v:
                if out is None:
                    out = list(items)
                out[i] = (k, m)
        return items if out is None else tuple(out)

    def _items(self, x: Any) -> list[Any] | None:
        """The items of a tuple moved, or None when none moved."""
        out: list[Any] | None = None
        for i, v in enumerate(x):
            m = v if type(v) in _PLAIN else self.map(v)
            if m is not v:
                if out is None:
                    out = list(x)
                out[i] = m
        return out

    def _walk(self, x: Any, t: type) -> Any:
        if not x and (t is tuple or t is frozenset):
            return x
        if t is tuple:
            items = self._items(x)
            return x if items is None else tuple(items)
        if t is frozenset:
            moved = self._items(tuple(x))
            return x if moved is None else frozenset(moved)
        if isinstance(x, enum.Enum):
            return x
        shape = _shape_of(t)
        if shape is None:
            raise Unmapped
        if shape.plain:
            return x
        if shape.named:
            items = self._items(x)
            return x if items is None else t(*items)
        if shape.has_path and isinstance(x.path, str):  # another file's place (a workspace import's Site, CiValue)
            return x
        changes: dict[str, Any] | None = None
        for name in shape.fields:
            v = getattr(x, name)
            if type(v) in _PLAIN:
                continue
            m = self.map(v)
            if m is not v:
                if changes is None:
                    changes = {}
                changes[name] = m
        if changes is None:
            return x
        if shape.plain_copy:
            new: Any = object.__new__(t)
            new.__dict__.update(x.__dict__)
            new.__dict__.update(changes)
            return new
        return dataclasses.replace(x, **changes)


__all__ = ["Shifter", "Unmapped"]


process_state.resettable("engine/interpreter/shift.py", "_FIELDS", _FIELDS.clear)
