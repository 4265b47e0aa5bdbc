"""Where a unit's check runs: the engine thread (`Lane`), a thread of its own for a big document, or the event
loop itself for a short one while the engine thread is idle (`lane_for`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal, TypeVar

T = TypeVar("T")

# Documents longer than this are analysed on their own thread, so a long analysis of one never delays the
# diagnostics of the others (the engine cannot be interrupted mid-run; the GIL shares the CPU between
# the two threads, so a small file's check stays about as fast as alone).
BIG_DOCUMENT_CHARS = 64 * 1024
# Documents up to this long are analysed on the event loop thread itself when the engine thread has nothing queued
# or running: a check of a few milliseconds, where handing it to the thread and its answer back to the loop (two
# wake-ups, the GIL passed twice) cost ~0.7 ms of CPU a keystroke on the 100-line script (8 %, bench/lsp_latency.py).
# An edit that arrives meanwhile waits in the pipe and is read right after the publish, as one arriving just after
# the check would; the engine is still never used by two threads at once (the engine thread is idle, the unit's
# lock is taken). Longer documents keep their thread: the loop is never held longer than a short check.
INLINE_DOCUMENT_CHARS = 16 * 1024


class Lane(ThreadPoolExecutor):
    """A one-thread executor that knows whether anything is queued or running on it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._busy = 0
        self._busy_lock = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._busy_lock:
            self._busy += 1
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self._done(None)
            raise
        future.add_done_callback(self._done)  # on the worker thread once it ran, or where it was cancelled
        return future

    def _done(self, _future: object) -> None:
        with self._busy_lock:
            self._busy -= 1

    @property
    def idle(self) -> bool:
        return self._busy == 0


def lane_for(size: int, once_big: bool, warmed: bool, engine_idle: bool) -> Literal["big", "inline", "engine"]:
    """The lane of a unit `size` characters long: the big-document thread once it was big (`once_big`: it stays
    there until closed), the loop itself when it is short and the engine thread warmed up and idle (if its lock is
    free: the caller's to take), else the engine thread."""
    if once_big:
        return "big"
    if size <= INLINE_DOCUMENT_CHARS and warmed and engine_idle:
        return "inline"
    return "engine"
