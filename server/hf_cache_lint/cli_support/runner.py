"""Check many files: cache hits, prefiltered and gated files in this process, the rest in as many workers as pay.

Most files of a real tree never reach the parser (the text prefilter rules them out in microseconds, the
compile gate most of the others in milliseconds), so the work a pool could share is the bytes of the files
that pass both, not the number of files. The parent reads every file once (the cache hashes exactly those
bytes), answers cache hits and the files the prefilter or the gate rule out itself, and starts workers only
for enough bytes to parse: a worker costs a fork and pickling both ways, which a few small files never pay
back (bench/bench_cli.py --mode pool measures it).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine import deps
from hf_cache_lint.engine.context import Context
from hf_cache_lint.engine.findings import CheckResult, FileError
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from hf_cache_lint.cli_support.cache import ResultCache

log = logging.getLogger("hf_cache_lint")

MAX_BYTES = 20 * 1024 * 1024  # = checking.files.MAX_BYTES (not imported: the engine loads only when needed)
# Pool sizing from the bytes that need a parse (parso parses ~0.5-1 MB/s here; a fork plus the pickling
# costs tens of milliseconds): no pool below POOL_MIN_BYTES, then one worker per BYTES_PER_WORKER.
POOL_MIN_BYTES = 256 * 1024
BYTES_PER_WORKER = 128 * 1024


@dataclass(frozen=True)
class Job:
    """A file that needs the engine, with the bytes the parent read (and hashed)."""

    index: int
    source: SourceFile
    data: bytes | None  # None: the parent could not read it; check_one reports why


def _guarded(source: SourceFile, run: object) -> CheckResult:
    try:
        return run()  # type: ignore[operator,no-any-return]
    except RecursionError:
        return CheckResult(source.display, error=FileError(source.display, "too deeply nested to analyse"))
    except MemoryError:
        return CheckResult(source.display, error=FileError(source.display, "out of memory while analysing"))
    except Exception as exc:  # a bug in the engine: report it for this file and check the others
        log.debug("internal error on %s", source.display, exc_info=True)
        return CheckResult(source.display, error=FileError(
            source.display, f"internal error: {type(exc).__name__}: {exc}"))


def check_one(source: SourceFile, settings: Settings, context: Context) -> CheckResult:
    """check_file with its fixes verified (fixcheck), any unexpected failure turned into a per-file
    error (never a traceback)."""
    from hf_cache_lint.checking.files import check_file
    from hf_cache_lint.fixcheck import verify_result

    return _guarded(source, lambda: verify_result(check_file(source.path, settings, context,
                                                             display=source.display),
                                                  source.path, settings, context))


def _run_job(job: Job, settings: Settings, context: Context) -> tuple[CheckResult, tuple[str, ...]]:
    """One file through the engine, and the paths its check consulted (for the cache)."""
    from hf_cache_lint.checking.files import check_data, check_file
    from hf_cache_lint.fixcheck import verify_result

    source = job.source

    def run() -> CheckResult:
        if job.data is None:
            result = check_file(source.path, settings, context, display=source.display)
        else:
            result = check_data(job.data, source.path, settings, context, display=source.display)
        return verify_result(result, source.path, settings, context)

    with deps.recording() as noted:  # the fix verification's re-checks read the same dependencies
        result = _guarded(source, run)
    return result, tuple(sorted(noted))


def _run_chunk(chunk: Sequence[Job], settings: Settings,
               context: Context) -> list[tuple[CheckResult, tuple[str, ...]]]:
    return [_run_job(j, settings, context) for j in chunk]


def default_jobs() -> int:
    """The pool's cap without --jobs: the CPUs this process may use that other work leaves idle (the one-minute
    load average). When every CPU is busy a second worker only shares the same cores, and its fork and the
    pickling make the run slower: at load 10 on this 2-CPU machine, 2 workers took 1.03x the time of
    --jobs 1 (bench/README.md)."""
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        cpus = max(1, os.cpu_count() or 1)
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        return cpus
    return max(1, min(cpus, 1 + int(cpus - load)))


def _pool_context() -> BaseContext | None:
    import multiprocessing

    # fork starts workers in milliseconds with the engine already imported; elsewhere use the default.
    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _read(source: SourceFile) -> tuple[bytes | None, os.stat_result | None]:
    try:
        st = source.path.stat()
        if st.st_size > MAX_BYTES:
            return None, st
        return source.path.read_bytes(), st
    except OSError:
        return None, None


def _clean_before_parse(data: bytes, source: SourceFile, context: Context) -> tuple[str, ...] | None:
    """The paths the decision read (for the cache) when the file's result is known to be clean before any
    parse: the text prefilter rules it out, or the compile gate does, asked as checking/source.py's
    check_source asks them for a file (its `path` the display name, as check_data gives it); else None, and
    the engine checks it (also when anything here fails: the engine then reports it as it would)."""
    # The prefilter and the text helpers: only for a file the cache did not answer.
    from hf_cache_lint.engine.prefilter import code_hits, might_use_removed_api
    from hf_cache_lint.engine.text import UndecodableError, decode_source

    if source.is_notebook or len(data) > MAX_BYTES:
        return None
    try:
        text = decode_source(data)
        removed_api = might_use_removed_api(text)
        if not removed_api and not code_hits(text, 1):
            return ()
        from hf_cache_lint.checking.source import keyword_matters  # the rules: only now
        from hf_cache_lint.engine.gate import cannot_hold_finding

        with deps.recording() as noted:
            if cannot_hold_finding(text, source.display, context, keyword_matters, removed_api):
                return tuple(sorted(noted))
    except (UndecodableError, RecursionError, MemoryError):
        return None
    except Exception:  # a bug in the gate: the engine's path reports it for this file
        log.debug("gate failed on %s", source.display, exc_info=True)
    return None


def workers_for(sizes: Sequence[int], cap: int) -> int:
    """How many worker processes the files needing a parse are worth (1: none, check here)."""
    total = sum(sizes)
    if cap <= 1 or len(sizes) < 2 or total < POOL_MIN_BYTES:
        return 1
    return max(1, min(cap, len(sizes), total // BYTES_PER_WORKER))


def check_files(sources: Sequence[SourceFile], settings: Settings, context: Context,
                jobs: int = 0, cache: ResultCache | None = None) -> list[CheckResult]:
    """Results in the order of `sources` (deterministic whatever the parallelism or the cache)."""
    results: list[CheckResult | None] = [None] * len(sources)
    todo: list[Job] = []
    digests: dict[int, tuple[str, os.stat_result | None]] = {}
    if cache is not None:
        from hf_cache_lint.cli_support.cache import digest

        cache = cache.for_run(settings, context)  # entries keyed for exactly this settings and context
    for i, source in enumerate(sources):
        if cache is not None:
            try:
                hit = cache.get_by_stat(source.display, source.stat or os.stat(source.where))
            except OSError:
                hit = None
            if hit is not None:
                results[i] = hit
                continue
        data, st = _read(source)
        if data is not None and cache is not None:
            digests[i] = (digest(data), st)
            hit = cache.get(source.display, digests[i][0], st)
            if hit is not None:
                results[i] = hit
                continue
        clean = _clean_before_parse(data, source, context) if data is not None else None
        if clean is not None:
            results[i] = CheckResult(source.display)
            if cache is not None:
                cache.put(source.display, *digests[i], clean, CheckResult(source.display))
            continue
        todo.append(Job(i, source, data))
    for job, (result, noted) in zip(todo, _run_all(todo, settings, context, jobs or default_jobs()), strict=True):
        results[job.index] = result
        if cache is not None and job.index in digests:
            cache.put(job.source.display, *digests[job.index], noted, result)
    if cache is not None:
        cache.save()
    return [r for r in results if r is not None]


def _run_all(todo: Sequence[Job], settings: Settings, context: Context,
             cap: int) -> list[tuple[CheckResult, tuple[str, ...]]]:
    sizes = [len(j.data) if j.data is not None else 0 for j in todo]
    workers = workers_for(sizes, cap)
    if workers <= 1:
        return [_run_job(j, settings, context) for j in todo]
    import hf_cache_lint.checking.files  # noqa: F401  (once here, not once per forked worker)
    # Largest files first, one per task: parse time grows with size, and handing the big ones out early
    # keeps every worker busy until the end (longest-processing-time-first scheduling).
    order = sorted(range(len(todo)), key=lambda k: -sizes[k])
    done: dict[int, tuple[CheckResult, tuple[str, ...]]] = {}
    # A worker that dies (killed by the kernel for memory, a crash in C code) breaks the whole pool and
    # fails every unfinished task. Finished results are kept and the rest run again in a fresh pool; when a
    # round finishes nothing, the first unfinished file runs alone, and if it takes that process down too,
    # that file alone is reported (checking it in this process could take the whole run down with it).
    while len(done) < len(todo):
        left = [k for k in order if k not in done]
        if not _pool_round(todo, left, settings, context, workers, done):
            done[left[0]] = _alone(todo[left[0]], settings, context)
    return [done[k] for k in range(len(todo))]


def _pool_round(todo: Sequence[Job], left: Sequence[int], settings: Settings, context: Context, workers: int,
                done: dict[int, tuple[CheckResult, tuple[str, ...]]]) -> int:
    """Run the `left` jobs in one pool, one per task; store what finishes; return how many did."""
    # The pool's modules load only for a run that starts one (~12 ms of every CLI start otherwise).
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    finished = 0
    try:
        with ProcessPoolExecutor(max_workers=min(workers, len(left)), mp_context=_pool_context(),
                                 initializer=_limit_memory) as pool:
            futures = {pool.submit(_run_chunk, [todo[k]], settings, context): k for k in left}
            for future in as_completed(futures):
                try:
                    [part] = future.result()
                except BrokenProcessPool:
                    continue
                done[futures[future]] = part
                finished += 1
    except (BrokenProcessPool, OSError) as exc:
        log.warning("a worker process died (%s); checking the unfinished files again", exc)
    return finished


def _alone(job: Job, settings: Settings, context: Context) -> tuple[CheckResult, tuple[str, ...]]:
    """One job in a process of its own; its death becomes that file's error."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=_pool_context(), initializer=_limit_memory) as pool:
            [part] = pool.submit(_run_chunk, [job], settings, context).result()
            return part
    except (BrokenProcessPool, OSError):
        display = job.source.display
        return CheckResult(display, error=FileError(
            display, "the analysis process died (out of memory or a crash); file skipped")), ()


# A worker's address space: past it an allocation fails with MemoryError (reported for that file by
# _guarded) instead of the kernel killing a process, or others, once the machine's memory is gone.
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
