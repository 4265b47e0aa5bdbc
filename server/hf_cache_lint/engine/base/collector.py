"""The cyclic garbage collector paused around work that allocates a tree's worth of objects."""

from __future__ import annotations

import gc
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
    later (a caller that answers first and collects after); `resume` turns it on and runs the young collection
    the block's allocations made due, so that it does not land in whatever allocates next."""
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
    due = gc.get_count()[0] > gc.get_threshold()[0]
    gc.enable()
    if due:
        gc.collect(0)
