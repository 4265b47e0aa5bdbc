"""The cyclic garbage collector paused around work that allocates a tree's worth of objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside: parso's trees (cyclic: a node knows its parent) and `ast` trees (no cycle)
    are ~10^5 objects for a large module, and each collection meanwhile rescans the whole heap (~40% of a check,
    a large module's `ast.parse` 2.5-4x as long: bench/bench_cli.py). What they leave is collected once it is back
    on. Process-wide, so only ever turned back on by whoever found it on (a thread inside finds it off and leaves
    it so)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
