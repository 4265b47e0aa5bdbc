"""Where a place of an editor buffer's last text stands in its new one, after one edit that added or removed lines
(Enter, lines joined, a paste): the lines before the changed block are where they were, the lines after it moved
by the same count, and a place inside the block has no counterpart. engine/syntax/parsing.py makes one per such
update of a kept tree (from the common head and tail of the two texts' lines); the interpreter's replays
(engine/interpreter/replay.py) move what an unchanged function's run recorded by it instead of running it again.

A position is a place between characters, so its line alone does not say which side it belongs to: (L, 0) is
both the start of line L and the end of line L - 1. A span's start names the character after it, its end the
character before it (spans are half-open); each is mapped by the line of that character, and an empty span
only where both readings agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Position, Span


class Unmapped(Exception):
    """A place inside the changed lines (or one whose side is ambiguous): it has no counterpart."""


@dataclass(frozen=True)
class LineMap:
    """Old lines 1..`head` are unchanged, old lines `head + 1`..`old_end` were replaced (none: a pure insertion),
    old lines after `old_end` are now `delta` lines further (1-based lines)."""

    head: int
    old_end: int
    delta: int

    def line(self, old: int) -> int:
        """The new line of the old line `old`'s characters."""
        if old <= self.head:
            return old
        if old > self.old_end:
            return old + self.delta
        raise Unmapped

    def back(self, new: int) -> int | None:
        """The old line whose characters the new line `new` holds (None: a line of the changed block)."""
        if new <= self.head:
            return new
        if new > self.old_end + self.delta:
            return new - self.delta
        return None

    def start(self, line: int, column: int) -> tuple[int, int]:
        """A start (of a span, of a node): the character at it."""
        return self.line(line), column

    def end(self, line: int, column: int) -> tuple[int, int]:
        """An end: the character before it (at column 0, the line break ending the line before)."""
        if column:
            return self.line(line), column
        if line <= 1:
            return line, column
        return self.line(line - 1) + 1, 0

    def span(self, span: Span) -> Span:
        s, e = span.start, span.end
        start, end = self.start(s.line, s.column), self.end(e.line, e.column)
        if s == e and start != end:  # an empty span: the two readings must agree
            raise Unmapped
        if start == (s.line, s.column) and end == (e.line, e.column):
            return span
        return Span(Position(*start), Position(*end))
