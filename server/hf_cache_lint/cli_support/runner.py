"""Check many files: in this process for a few, in a process pool (one per core) for many."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.api import check_file
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult, FileError
from hf_cache_lint.fixcheck import verify_result
from hf_cache_lint.settings import Settings

log = logging.getLogger("hf_cache_lint")

# Below this many files a pool costs more (start-up, pickling) than it saves.
PARALLEL_MIN = 16


def check_one(source: SourceFile, settings: Settings, context: Context) -> CheckResult:
    """check_file with its fixes verified (fixcheck), any unexpected failure turned into a per-file
    error (never a traceback)."""
    try:
        result = check_file(source.path, settings, context, display=source.display)
        return verify_result(result, source.path, settings, context)
    except RecursionError:
        return CheckResult(source.display, error=FileError(source.display, "too deeply nested to analyse"))
    except MemoryError:
        return CheckResult(source.display, error=FileError(source.display, "out of memory while analysing"))
    except Exception as exc:  # a bug in the engine: report it for this file and check the others
        log.debug("internal error on %s", source.display, exc_info=True)
        return CheckResult(source.display, error=FileError(
            source.display, f"internal error: {type(exc).__name__}: {exc}"))


def _check_chunk(chunk: Sequence[SourceFile], settings: Settings, context: Context) -> list[CheckResult]:
    return [check_one(s, settings, context) for s in chunk]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _pool_context() -> BaseContext | None:
    import multiprocessing

    # fork starts workers in milliseconds with the engine already imported; elsewhere use the default.
    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _size(source: SourceFile) -> int:
    try:
        return source.path.stat().st_size
    except OSError:
        return 0


def check_files(sources: Sequence[SourceFile], settings: Settings, context: Context,
                jobs: int = 0) -> list[CheckResult]:
    """Results in the order of `sources` (deterministic whatever the parallelism)."""
    jobs = jobs or default_jobs()
    if jobs <= 1 or len(sources) < PARALLEL_MIN:
        return [check_one(s, settings, context) for s in sources]
    # Largest files first, in small chunks: parse time grows with size, and handing the big ones out
    # early keeps every worker busy until the end (longest-processing-time-first scheduling).
    order = sorted(range(len(sources)), key=lambda i: -_size(sources[i]))
    size = max(1, min(8, len(sources) // (jobs * 16)))
    chunks = [[sources[i] for i in order[k:k + size]] for k in range(0, len(order), size)]
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context()) as pool:
            parts = list(pool.map(_check_chunk, chunks, [settings] * len(chunks), [context] * len(chunks)))
    except (BrokenProcessPool, OSError) as exc:  # a worker died (e.g. killed for memory): redo it here
        log.warning("parallel check failed (%s); checking in one process", exc)
        return [check_one(s, settings, context) for s in sources]
    results: list[CheckResult | None] = [None] * len(sources)
    for i, result in zip(order, (r for part in parts for r in part), strict=True):
        results[i] = result
    return [r for r in results if r is not None]
