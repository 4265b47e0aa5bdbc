"""Run chunks of a list of items in forked worker processes, surviving a worker that dies.

Generic over the items and their results (cli_support/runner.py gives it files and their outcomes). A worker
that dies (killed by the kernel for memory, a crash in C code) breaks the whole pool and fails every unfinished
task: finished results are kept and the rest run again in a fresh pool, one item a task; when a round finishes
nothing, the first unfinished item runs in a process of its own, and if it takes that process down too, `died`
gives that item's result (running it in this process could take the whole run down with it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

log = logging.getLogger("hf_cache_lint")

T = TypeVar("T")
R = TypeVar("R")


def pool_context() -> BaseContext | None:
    import multiprocessing

    # fork starts workers in milliseconds with the engine already imported; elsewhere use the default.
    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def run(items: Sequence[T], chunks: Sequence[Sequence[int]], work: Callable[[list[T]], list[R]],
        workers: int, died: Callable[[T], R], on_done: Callable[[int], None] | None = None) -> list[R]:
    """work(chunk's items) for every chunk (indices into `items`, in the order to hand them out), in up to
    `workers` processes; the results in the order of `items`. `work` must pickle (a module-level function,
    or a functools.partial of one). `on_done(n)`: n more items finished (a progress bar)."""
    done: dict[int, R] = {}
    tasks = [list(c) for c in chunks]
    while len(done) < len(items):
        finished = _round(items, tasks, work, workers, done, on_done)
        left = [k for task in tasks for k in task if k not in done]
        if left and not finished:
            done[left[0]] = _alone(items[left[0]], work, died)
            left = left[1:]
        tasks = [[k] for k in left]
    return [done[k] for k in range(len(items))]


def _round(items: Sequence[T], tasks: Sequence[Sequence[int]], work: Callable[[list[T]], list[R]],
           workers: int, done: dict[int, R], on_done: Callable[[int], None] | None = None) -> int:
    """Run the tasks in one pool; store what finishes; return how many items did."""
    # The pool's modules load only for a run that starts one (~12 ms of every CLI start otherwise).
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    finished = 0
    if not tasks:
        return 0
    try:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=pool_context(),
                                 initializer=_limit_memory) as pool:
            futures = {pool.submit(work, [items[k] for k in task]): task for task in tasks}
            for future in as_completed(futures):
                try:
                    parts = future.result()
                except BrokenProcessPool:
                    continue
                for k, part in zip(futures[future], parts, strict=True):
                    done[k] = part
                finished += len(parts)
                if on_done is not None:
                    on_done(len(parts))
    except (BrokenProcessPool, OSError) as exc:
        log.warning("a worker process died (%s); checking the unfinished files again", exc)
    return finished


def _alone(item: T, work: Callable[[list[T]], list[R]], died: Callable[[T], R]) -> R:
    """One item in a process of its own; its death becomes died(item)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=pool_context(), initializer=_limit_memory) as pool:
            [part] = pool.submit(work, [item]).result()
            return part
    except (BrokenProcessPool, OSError):
        return died(item)


# A worker's address space: past it an allocation fails with MemoryError (reported for that file by
# runner._guarded) instead of the kernel killing a process, or others, once the machine's memory is gone.
WORKER_MEMORY = 4 * 2**30


def _limit_memory() -> None:
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > WORKER_MEMORY:
            limit = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, ValueError, OSError):  # not on this platform, or not allowed: no limit
        pass
