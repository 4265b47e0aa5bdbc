"""Check many files: cache hits by stat here, every other file's whole pipeline in as many workers as pay.

The parent discovers (with one stat a file), answers the files whose stat the result cache trusts, and hands
the rest out in chunks of paths in file order (cheap to pickle: a worker reads each file itself). A worker
runs a file's whole pipeline (`_pipeline`): read, the content digest for the cache, a digest hit in its
forked copy of the cache, the text prefilter, the compile gate, the engine with the fixes verified; it returns
an `Outcome` (the result, the digest and stat of exactly the bytes checked, the paths the decision read).
The parent alone asks its cache again for a digest hit (so the entry learns a settled stat there), writes
every entry and saves. Most files never reach the parser, but read + prefilter + gate are half the CPU of
a tree, so the pool shares them too; chunks go out as workers free up (largest first), so both stay busy
to the end. A pool costs a fork and pickling both ways, which a handful of small files never pays back:
the worker count comes from the bytes to check (bench/bench_cli.py --mode pool measures it). cli_support/
pool.py runs the chunks and survives a worker that dies.
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult, FileError
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from hf_cache_lint.cli_support.cache import ResultCache

log = logging.getLogger("hf_cache_lint")

MAX_BYTES = 20 * 1024 * 1024  # = checking.files.MAX_BYTES (not imported: the engine loads only when needed)
# Pool sizing from the bytes of the files the stat cache did not answer (the whole pipeline takes ~0.1-0.3 s a
# MB of a real tree here, most files never parsed; a fork plus the pickling costs tens of milliseconds): no
# pool below POOL_MIN_BYTES, then one worker per BYTES_PER_WORKER.
POOL_MIN_BYTES = 1024 * 1024
BYTES_PER_WORKER = 512 * 1024


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


def _run_job(source: SourceFile, data: bytes | None, settings: Settings, context: Context,
             gated: Gated | None = None) -> tuple[CheckResult, tuple[str, ...]]:
    """One file through the engine (`data` the bytes read, None when unreadable: check_file reports why), and
    the paths its check consulted (for the cache). `gated`: the gate already passed these bytes (not clean):
    check_source then runs without asking it again (its answer is known: ~0.5 s of CPU on transformers' tree,
    whose 26 passing files are its largest), and the paths the gate read count too, as when check_source
    asked it."""
    from hf_cache_lint.checking.files import check_data, check_file
    from hf_cache_lint.fixcheck import recheck_key, verify_result

    def run() -> CheckResult:
        if data is None:
            result = check_file(source.path, settings, context, display=source.display)
        else:
            # The tree kept for the fixes' re-checks (verify_result drops it): the first re-parses what they change.
            result = check_data(data, source.path, settings, context, display=source.display,
                                use_gate=gated is None, keep_tree=recheck_key(source.display))
        return verify_result(result, source.path, settings, context)

    with deps.recording() as noted:  # the fix verification's re-checks read the same dependencies
        result = _guarded(source, run)
    if gated is not None:
        noted.update(gated.noted)
    return result, tuple(sorted(noted))


def default_jobs() -> int:
    """The pool's cap without --jobs: the CPUs this process may use, one fewer for each CPU the one-minute load
    average says is busy all the time. A CPU only partly busy still helps: the load average also counts what
    ran just before (a previous command, this run's own start), and at load 1 on this 2-CPU machine two workers
    took 0.53x the wall time of --jobs 1, while with every CPU busy (load 10) they took 1.03x (bench/README.md,
    third and fifth passes)."""
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        cpus = max(1, os.cpu_count() or 1)
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        return cpus
    return max(1, min(cpus, cpus + 1 - int(load)))


def _read(source: SourceFile) -> tuple[bytes | None, os.stat_result | None]:
    try:
        st = source.path.stat()
        if st.st_size > MAX_BYTES:
            return None, st
        return source.path.read_bytes(), st
    except OSError:
        return None, None


@dataclass(frozen=True)
class Gated:
    """What the text prefilter and the compile gate said of a file, asked as checking/source.py's check_source
    asks them: `clean` (its result is known before any parse), else the gate passed the file on to the engine."""

    clean: bool
    noted: tuple[str, ...]  # the paths the decision read (for the cache)


def _gate(data: bytes, source: SourceFile, settings: Settings, context: Context) -> Gated | None:
    """The screen (checking/screening.py `screen`, as check_source asks it) on a file's bytes (its `path` the
    display name, as check_data gives it); None when it was not asked to the end (a notebook, too large,
    undecodable, or anything failed: the engine then checks the file, screen included, and reports it as it
    would)."""
    from hf_cache_lint.checking.screening import screen
    from hf_cache_lint.engine.base.collector import gc_paused
    from hf_cache_lint.engine.text.text import UndecodableError, decode_source

    if source.is_notebook or len(data) > MAX_BYTES:
        return None
    try:
        text = decode_source(data)
        # The collector off for the whole gate, as check_source has it: the parses and walks allocate a tree's
        # worth of objects, none of them in a cycle, and each pass rescans the heap (~7% of the gate's CPU on
        # transformers, on top of the pauses around its parses).
        with deps.recording() as noted, gc_paused():
            clean = not screen(text, source.display, settings, context)
        return Gated(clean, tuple(sorted(noted)))
    except (UndecodableError, RecursionError, MemoryError):
        return None
    except Exception:  # a bug in the screen: the engine's path reports it for this file
        log.debug("screen failed on %s", source.display, exc_info=True)
    return None


def workers_for(sizes: Sequence[int], cap: int) -> int:
    """How many worker processes files of these sizes are worth (1: none, check here)."""
    total = sum(sizes)
    if cap <= 1 or len(sizes) < 2 or total < POOL_MIN_BYTES:
        return 1
    return max(1, min(cap, len(sizes), total // BYTES_PER_WORKER))


@dataclass(frozen=True)
class Outcome:
    """A file's pipeline, for the parent: its result, and what the cache needs to keep it."""

    result: CheckResult
    digest: str | None  # of exactly the bytes checked; None without a cache or when unreadable
    stat: os.stat_result | None  # taken before the read
    noted: tuple[str, ...]  # the paths the result depends on
    hit: bool = False  # the result came from the cache (in a worker: from its copy, the parent asks again)


def _pipeline(source: SourceFile, settings: Settings, context: Context, cache: ResultCache | None,
              digests: bool) -> Outcome:
    """One file from its path to its result, as check_files would check it serially."""
    data, st = _read(source)
    content = None
    if data is not None and digests:
        from hf_cache_lint.cli_support.cache import digest

        content = digest(data)
        hit = cache.get(source.display, content, st) if cache is not None else None
        if hit is not None:
            return Outcome(hit, content, st, (), hit=True)
    gated = _gate(data, source, settings, context) if data is not None else None
    if gated is not None and gated.clean:
        return Outcome(CheckResult(source.display), content, st, gated.noted)
    result, noted = _run_job(source, data, settings, context, gated)
    return Outcome(result, content, st, noted)


# The parent's cache, seen by forked workers as it was when they started (read-only there: a worker's
# writes would be lost). None in a worker that was not forked: it then checks every file it gets.
_FORKED_CACHE: ResultCache | None = None


def _run_chunk(chunk: list[SourceFile], settings: Settings, context: Context, digests: bool) -> list[Outcome]:
    return [_pipeline(s, settings, context, _FORKED_CACHE, digests) for s in chunk]


def _died(source: SourceFile) -> Outcome:
    return Outcome(CheckResult(source.display, error=FileError(
        source.display, "the analysis process died (out of memory or a crash); file skipped")), None, None, ())


# Files a task: small enough that the last tasks end together, large enough that a task's pickling and
# queueing (a fraction of a millisecond) stay small against its work.
CHUNK = 32


def check_files(sources: Sequence[SourceFile], settings: Settings, context: Context,
                jobs: int = 0, cache: ResultCache | None = None,
                progress: Callable[[int], None] | None = None) -> list[CheckResult]:
    """Results in the order of `sources` (deterministic whatever the parallelism or the cache). `progress(n)`:
    n more files are done (cli_support/progress.py draws it)."""
    from hf_cache_lint.engine.environment.confine import settled

    with settled():  # the tree stands still for the run: each path's realpath once (engine/environment/confine.py)
        return _check_files(sources, settings, context, jobs, cache, progress)


def _check_files(sources: Sequence[SourceFile], settings: Settings, context: Context,
                 jobs: int, cache: ResultCache | None,
                 progress: Callable[[int], None] | None = None) -> list[CheckResult]:
    global _FORKED_CACHE
    results: list[CheckResult | None] = [None] * len(sources)
    todo: list[int] = []
    sizes: list[int] = []
    if cache is not None:
        cache = cache.for_run(settings, context)  # entries keyed for exactly this settings and context
    for i, source in enumerate(sources):
        try:
            st: os.stat_result | None = source.stat or os.stat(source.where)
        except OSError:
            st = None
        hit = cache.get_by_stat(source.display, st) if cache is not None and st is not None else None
        if hit is not None:
            results[i] = hit
            continue
        todo.append(i)
        sizes.append(st.st_size if st is not None else 0)
    workers = workers_for(sizes, jobs or default_jobs())
    digests = cache is not None
    if progress is not None and len(sources) > len(todo):
        progress(len(sources) - len(todo))  # answered from the cache
    if workers <= 1:
        outcomes = []
        for i in todo:
            outcomes.append(_pipeline(sources[i], settings, context, cache, digests))
            if progress is not None:
                progress(1)
    else:
        from functools import partial

        # Once here, not once per forked worker: the engine, the rules (~0.1-0.2 s each time: the gate's
        # keyword_matters asks them in every worker that gates a file with a trigger word), the gate (its
        # dataclasses' methods then come from the CLI's file of their code: class_code.py) and the fix check.
        import hf_cache_lint.checking.files
        import hf_cache_lint.engine.screen.gate  # the screen's gate, which a tree of this size always reaches
        import hf_cache_lint.fixcheck
        import hf_cache_lint.rules  # noqa: F401
        from hf_cache_lint.cli_support import pool
        chunks = [list(range(k, min(k + CHUNK, len(todo)))) for k in range(0, len(todo), CHUNK)]
        chunks.sort(key=lambda c: -sum(sizes[k] for k in c))  # largest first: none left alone at the end
        _FORKED_CACHE = cache
        # What is alive now (the imported engine, this run's state) out of the collector's sight until the
        # pool ends: a collection in a worker would otherwise write to every such object's header and so copy,
        # page by page, the memory it shares with this process after the fork (the gc module's docs).
        gc.freeze()
        try:
            outcomes = pool.run([sources[i] for i in todo], chunks,
                                partial(_run_chunk, settings=settings, context=context, digests=digests),
                                workers, _died, progress)
        finally:
            gc.unfreeze()
            _FORKED_CACHE = None
    for i, outcome in zip(todo, outcomes, strict=True):
        display = sources[i].display
        if cache is not None and outcome.hit and workers > 1:
            hit = cache.get(display, outcome.digest or "", outcome.stat)  # the entry may learn the stat here
            # None only when a dependency changed while the workers ran: check it again, here
            outcome = (Outcome(hit, outcome.digest, outcome.stat, (), hit=True) if hit is not None
                       else _pipeline(sources[i], settings, context, None, digests))
        results[i] = outcome.result
        if cache is not None and not outcome.hit and outcome.digest is not None:
            cache.put(display, outcome.digest, outcome.stat, outcome.noted, outcome.result)
    if cache is not None:
        cache.save()
    return [r for r in results if r is not None]
