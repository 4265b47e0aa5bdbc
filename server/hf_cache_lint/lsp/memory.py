"""The server's memory between keystrokes: the heap frozen once a unit's first results are out (`freeze_heap`) and
thawed at a close (`forget_tree`), the cyclic collection a check made due run after its results are out
(`collection_deferred`), and freed pages given back to the system (`trim_malloc`)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hf_cache_lint.lsp.server import State

# A freeze after each unit's first results (`freeze_heap`) keeps, until a thaw, what later edits replace in the
# trees it froze: opening this many units without closing one thaws and freezes again (~30-50 ms).
FREEZES_BEFORE_THAW = 16


def freeze_heap(state: State) -> None:
    """Once a unit's first results are out: collect, then freeze what is left (its kept parse tree and what the
    check carries to the next), so that the keystrokes' older-generation collections no longer walk it (on
    generation/utils.py the tree is ~56,000 objects; a generation-2 collection of them took 30-60 ms every
    ~100 keystrokes, bench/README.md, issue 31, tenth session). Frozen objects are never collected: what a later
    keystroke replaces in that tree (a re-parsed statement's nodes, cyclic through their parents) stays until
    the next thaw, at most the frozen tree itself (~70 objects over 120 Enter/join edits on utils.py). A close
    thaws (`forget_tree`), and so does every FREEZES_BEFORE_THAW-th freeze without one (a freeze also catches
    any other open buffer's tree and a check under way on another lane)."""
    state.freezes += 1
    if state.freezes >= FREEZES_BEFORE_THAW:
        state.freezes = 0
        gc.unfreeze()
    gc.collect()
    gc.freeze()


def collection_deferred(loop: asyncio.AbstractEventLoop) -> contextlib.AbstractContextManager[None]:
    """No cyclic collection until the results are out (engine/base/collector.py `gc_paused`): a push publishes in this
    loop step, a pull's answer is written by its task's done callback, queued as the step ends. The young
    collection the check made due (~0.4 ms of a 2.6 ms keystroke on the 100-line script, bench/lsp_latency.py)
    then runs after both, between keystrokes: on a zero-delay timer, which the loop runs in the next step after
    the callbacks queued before it (asyncio's `_run_once` appends due timers to the ready queue)."""
    from hf_cache_lint.engine.base.collector import gc_paused  # the engine's, loaded by then: not at start-up

    return gc_paused(resume_later=partial(loop.call_later, 0))


def forget_tree(path: str) -> None:
    """On the engine thread: parso's kept tree of a closed buffer, and the memory it held. The tree was frozen
    with the rest of the heap (`freeze_heap`): thawed, collected, and what lives frozen again (start-up's objects,
    the other buffers' trees: ~30-50 ms on a heap with utils.py open, once per close)."""
    if "hf_cache_lint.engine.interpreter.interp" in sys.modules:
        from hf_cache_lint.engine.interpreter.interp import forget

        forget(path)
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    trim_malloc()


def trim_malloc() -> None:
    """Give freed heap pages back to the system (glibc keeps them otherwise: RSS stays high after close)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl): nothing to trim
        pass
