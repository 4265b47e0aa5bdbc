"""The cyclic garbage collector paused around work that allocates a tree's worth of objects."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(resume_later: Callable[[Callable[[], None]], object] | None = None) -> Iterator[None]:
    """No cyclic collection inside: parso's trees (cyclic: a node knows its parent) and `ast` trees (no cycle)
    are ~10^5 objects for a large module, and each collection meanwhile rescans the whole heap (~40% of a check,
    a large module's `ast.parse` 2.5-4x as long: bench/bench_cli.py). What they leave is collected once it is back
    on. Process-wide, so only ever turned back on by whoever found it on (a thread inside finds it off and leaves
    it so).

    `resume_later(resume)`: instead of turning it back on at the end of the block, hand `resume` to be called
    later (a caller that answers first and collects after); `resume` turns it on and runs the collection the
    block's allocations made due (of the generation the collector's schedule picks: `due_generation`), so that it
    does not land in whatever allocates next."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if resume_later is None:
                gc.enable()
            else:
                resume_later(_resume_collecting)


def _resume_collecting() -> None:
    counts, thresholds = gc.get_count(), gc.get_threshold()
    gc.enable()
    if counts[0] > thresholds[0]:
        gc.collect(due_generation(counts, thresholds))


def due_generation(counts: tuple[int, int, int], thresholds: tuple[int, int, int]) -> int:
    """The generation the collector's own schedule would collect now: the oldest whose count passed its
    threshold (an older generation's count is the number of collections of the one below since its last).

    An explicit `gc.collect(0)` only adds to generation 1's count; only the collector's automatic collections
    look at it. The language server's inline checks pause the collector and resume it here, and the allocations
    between two keystrokes seldom make an automatic collection due, so with `collect(0)` alone generations 1 and 2
    were collected only when one happened to (9280b4a: now and then; with replays, none in the bench): what
    survives one young collection and dies later stayed for good (the re-parsed statement's parso nodes, cyclic
    through their parents, replaced at the next keystroke: +1.4 KB per edit, issue 31).

    Generation 2 here skips the collector's long-lived ratio (not readable from Python): a full collection every
    ~120 young ones, which skips what `gc.freeze()` froze. From 3.14 the collector is incremental (its automatic
    collection is the young generation and an increment of the old one, `gc.collect(1)`; the third threshold is
    unused)."""
    if sys.version_info >= (3, 14):
        return 1
    for generation in (2, 1):
        if counts[generation] > thresholds[generation]:
            return generation
    return 0
