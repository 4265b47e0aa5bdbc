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
(`Unmapped`), as does a place inside the changed lines: that run is run again.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, TypeVar

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.syntax.line_map import LineMap, Unmapped

_T = TypeVar("_T")
Key = tuple[tuple[int, int], str]

# Objects that hold no place: kept as they are (`object`: replay.py's sentinel for a name the module lacks).
_PLAIN = frozenset({str, int, float, bool, complex, bytes, type(None), object})
# Per type: the fields a copy maps (dataclasses: those taking part in equality), () for a named tuple's items, and
# None for a type nothing here knows (it refuses).
_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _fields_of(t: type) -> tuple[str, ...] | None:
    got = _FIELDS.get(t, ())
    if got != ():
        return got
    if dataclasses.is_dataclass(t):
        found: tuple[str, ...] | None = tuple(f.name for f in dataclasses.fields(t) if f.compare)
    elif issubclass(t, tuple) and hasattr(t, "_fields"):
        found = ()
    else:
        found = None
    _FIELDS[t] = found
    return found


class Shifter:
    """One check's moves of what the last check recorded (memoised by object: the recorded runs of one check
    share the module's values, and replay.py compares them by identity first)."""

    def __init__(self, lines: LineMap) -> None:
        self.lines = lines
        self._memo: dict[int, tuple[object, object]] = {}

    def key(self, key: Key) -> Key:
        """A function's key (function_keys.py: where it starts, its code) where the function now starts."""
        (line, column), code = key
        return (self.lines.line(line), column), code

    def start(self, at: tuple[int, int]) -> tuple[int, int]:
        return self.lines.start(*at)

    def map(self, x: _T) -> _T:
        """`x` with every place of this file in it moved (itself when none moved). Raises Unmapped."""
        t = type(x)
        if t in _PLAIN or isinstance(x, enum.Enum):
            return x
        if t is Span:
            return self.lines.span(x)  # type: ignore[arg-type, return-value]
        got = self._memo.get(id(x))
        if got is not None and got[0] is x:
            return got[1]  # type: ignore[return-value]
        out = self._walk(x, t)
        self._memo[id(x)] = (x, out)
        return out  # type: ignore[no-any-return]

    def _walk(self, x: Any, t: type) -> Any:
        if t is tuple or t is frozenset:
            items = [self.map(i) for i in x]
            return x if all(a is b for a, b in zip(items, x, strict=True)) else t(items)
        names = _fields_of(t)
        if names is None:
            raise Unmapped
        if names == ():  # a named tuple
            items = [self.map(i) for i in x]
            return x if all(a is b for a, b in zip(items, x, strict=True)) else t(*items)
        if isinstance(getattr(x, "path", None), str):  # another file's place (a workspace import's Site, CiValue)
            return x
        changes = {}
        for name in names:
            v = getattr(x, name)
            m = self.map(v)
            if m is not v:
                changes[name] = m
        return dataclasses.replace(x, **changes) if changes else x


__all__ = ["Shifter", "Unmapped"]


process_state.resettable("engine/interpreter/shift.py", "_FIELDS", _FIELDS.clear)
