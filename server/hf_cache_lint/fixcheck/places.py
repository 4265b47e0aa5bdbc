"""Positions through a fix's edits: the edits as text offsets, applied in one pass, and the findings of a fixed
text taken back to the original's places (which finding of a re-check is one of before)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from typing import TypeVar

from hf_cache_lint.engine.base.findings import Edit, Finding
from hf_cache_lint.engine.text.text import line_starts

T = TypeVar("T", int, tuple[int, int])  # an offset, or a (line, column) position


def offsets(text: str, edits: Iterable[Edit], starts: list[int] | None = None) -> list[tuple[int, int, int]] | None:
    """Each edit as (old start, old end, new length) in text offsets, sorted; None if one does not fit.
    `starts`: the text's line starts when the caller has them (many fixes of one text: no copy each)."""
    if starts is None:
        starts = line_starts(text)
    out = []
    for e in edits:
        a, b = e.span.start, e.span.end
        if not (1 <= a.line <= len(starts) and 1 <= b.line <= len(starts)) or a > b:
            return None
        offs = []
        for p in (a, b):
            line_end = starts[p.line] if p.line < len(starts) else len(text)
            body = text[starts[p.line - 1]:line_end].rstrip("\r\n")
            if not 0 <= p.column <= len(body):
                return None
            offs.append(starts[p.line - 1] + p.column)
        out.append((offs[0], offs[1], len(e.content)))
    out.sort()
    if any(x[1] > y[0] for x, y in itertools.pairwise(out)):
        return None  # a fix whose own edits overlap
    return out


def located(text: str, edits: Sequence[Edit], starts: list[int] | None = None) -> tuple[tuple[int, int, str], ...] | None:
    """The edits as (start, end, content) offsets sorted by place (`splice`'s input), or None when they do not
    fit the text or overlap (`offsets`). Insertions at one point end up as `apply_edits` puts them (the later
    one first)."""
    if starts is None:
        starts = line_starts(text)
    if offsets(text, edits, starts) is None:
        return None
    placed = sorted(((starts[e.span.start.line - 1] + e.span.start.column,
                      starts[e.span.end.line - 1] + e.span.end.column, -i, e.content) for i, e in enumerate(edits)))
    return tuple((a, b, content) for a, b, _, content in placed)


def splice(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """`text` with (start, end, content) edits, sorted and not overlapping, applied in one pass (apply_edits
    copies the whole text once per edit: quadratic for the hundreds of fixes of a large module)."""
    pieces: list[str] = []
    at = 0
    for a, b, content in edits:
        pieces += (text[at:a], content)
        at = b
    pieces.append(text[at:])
    return "".join(pieces)


def new_ranges(edits: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """(old start, new start, new length) of each edit."""
    out, delta = [], 0
    for a, b, n in edits:
        out.append((a, a + delta, n))
        delta += n - (b - a)
    return out


class Moved:
    """Positions of a fixed text taken back to the original: which finding of a re-check is one of before.

    Line starts are worked out once per text, and each position is found by bisection among the edits, so
    matching the findings of a re-check of many fixes at once stays linear (give or take a log)."""

    def __init__(self, old: str, new: str, edits: Sequence[tuple[int, int, int]]) -> None:
        self.old_starts, self.new_starts = line_starts(old), line_starts(new)
        self.edits = edits
        self.ends: list[int] = []  # new-text end of each edit's new text (non-decreasing)
        self.deltas: list[int] = []  # new minus old offset before each edit
        delta = 0
        for a, b, n in edits:
            self.deltas.append(delta)
            self.ends.append(a + delta + n)
            delta += n - (b - a)
        self.delta = delta

    def back(self, q: int) -> tuple[int, int]:
        """A new-text offset as the old-text offsets it may stand for: itself shifted back, or the whole
        old range of the edit whose new text holds it (its ends included; the first such edit)."""
        i = bisect.bisect_left(self.ends, q)
        if i == len(self.edits):
            return q - self.delta, q - self.delta
        a, b, _ = self.edits[i]
        if q < a + self.deltas[i]:
            return q - self.deltas[i], q - self.deltas[i]
        return a, b

    @staticmethod
    def _off(starts: list[int], line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column

    def old_span(self, f: Finding) -> tuple[int, int]:
        return (self._off(self.old_starts, f.span.start.line, f.span.start.column),
                self._off(self.old_starts, f.span.end.line, f.span.end.column))

    def places(self, found: Iterable[Finding]) -> Places:
        """Where the findings of the fixed text stand in the original."""
        places = Places()
        for now in found:
            lo, hi = self.back(self._off(self.new_starts, now.span.start.line, now.span.start.column))
            lo2, hi2 = self.back(self._off(self.new_starts, now.span.end.line, now.span.end.column))
            if lo == hi and lo2 == hi2:
                places.points.add((now.code, lo, lo2))
            else:
                places.ranges.setdefault(now.code, []).append((lo, hi, lo2, hi2))
        return places


class Places:
    """Findings of a fixed text in the original's offsets: a point where outside every edit, a range where
    inside one."""

    def __init__(self) -> None:
        self.points: set[tuple[str, int, int]] = set()
        self.ranges: dict[str, list[tuple[int, int, int, int]]] = {}

    def holds(self, code: str, start: int, end: int) -> bool:
        """Whether a finding of `code` at [start, end) of the original is reported again."""
        return (code, start, end) in self.points or any(
            lo <= start <= hi and lo2 <= end <= hi2 for lo, hi, lo2, hi2 in self.ranges.get(code, ()))

def free(spans: list[tuple[T, T]], a: T, b: T) -> bool:
    """Whether [a, b] neither overlaps nor touches any of `spans` (sorted, disjoint, not touching)."""
    i = bisect.bisect_left(spans, (a, b))
    if i < len(spans) and spans[i][0] <= b:
        return False
    return not (i > 0 and spans[i - 1][1] >= a)
