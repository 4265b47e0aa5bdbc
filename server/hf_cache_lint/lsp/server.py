"""The language server object: open units, settings per folder, and the one engine worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from hf_cache_lint import __version__
from hf_cache_lint.lsp import settings as lsp_settings
from hf_cache_lint.lsp import startup
from hf_cache_lint.lsp.documents import Part, Results, Unit, analyse_unit, uri_to_path
from hf_cache_lint.lsp.protocol import Protocol

if TYPE_CHECKING:  # fixcheck loads with the first code action (lsp/actions.py), not at start-up
    from hf_cache_lint.fixcheck import Verifier

log = logging.getLogger(__name__)
T = TypeVar("T")

# A document (a notebook: all its code cells) longer than this is not analysed: one Information diagnostic
# says so. The same cap the engine puts on the workspace modules it imports (engine/interpreter/modules.py).
MAX_DOCUMENT_CHARS = 2 * 1024 * 1024
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
# A freeze after each unit's first results (`HfCacheLintServer.freeze_heap`) keeps, until a thaw, what later edits
# replace in the trees it froze: opening this many units without closing one thaws and freezes again (~30-50 ms).
FREEZES_BEFORE_THAW = 16

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    # lsprotocol 2025 clients cannot read a selector without `notebook=` (docs/editors.md).
    notebook_selector=[types.NotebookDocumentFilterWithNotebook(
        notebook="*", cells=[types.NotebookCellLanguage(language="python")])],
    save=True,
)


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


@dataclass
class _Shared:
    """One engine run that several waiters (push, pull, hover, code actions) may share."""

    key: tuple[Any, ...]
    future: asyncio.Future[Results | None]
    waiters: int = 0


@dataclass
class State:
    """Mutable server state; every field is touched on the event loop thread only."""

    init_options: Mapping[str, Any] = field(default_factory=dict)
    editor: dict[str | None, Mapping[str, Any]] = field(default_factory=dict)  # folder uri -> hfCacheLint
    folders: dict[str | None, lsp_settings.FolderConfig] = field(default_factory=dict)
    generation: int = 0  # bumped by every settings change: results of older generations are stale
    runs: dict[str, _Shared] = field(default_factory=dict)  # unit uri -> latest engine run
    pending: dict[str, asyncio.Task[None]] = field(default_factory=dict)  # unit uri -> debounce/push task
    published: dict[str, set[str]] = field(default_factory=dict)  # unit uri -> part uris with diagnostics
    saved: dict[str, Unit] = field(default_factory=dict)  # unit uri -> snapshot at the last open or save
    # unit uri -> (snapshot key, fixcheck.Verifier of that snapshot): fixes verified once per version
    verifiers: dict[str, tuple[tuple[Any, ...], Verifier]] = field(default_factory=dict)
    shown_notes: set[str] = field(default_factory=set)  # settings warnings already shown to the user
    frozen: set[str] = field(default_factory=set)  # unit uris whose first results' heap was frozen (`freeze_heap`)
    freezes: int = 0  # heap freezes since the last thaw (FREEZES_BEFORE_THAW)


class HfCacheLintServer(LanguageServer):
    """Holds the state; handlers in lsp/handlers.py stay short and delegate to pure helpers."""

    def __init__(self) -> None:
        super().__init__("hf-cache-lint", __version__, notebook_document_sync=NOTEBOOK_SYNC, protocol_cls=Protocol)
        self.state = State()
        self.settings_ready = asyncio.Event()
        # One worker: the engine (parso caches, jedi) is not meant for concurrent use, and a queue of
        # one keeps superseded runs cancellable before they start.
        self.engine = Lane(max_workers=1, thread_name_prefix="hf-cache-lint-engine")
        self.big_engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hf-cache-lint-engine-big")
        self.big_units: set[str] = set()  # units that once were big: they stay on big_engine until closed
        # Code actions verify their fixes (fixcheck) here, each unit in a parse tree of its own (`#fixcheck`): a
        # verification of many seconds never holds back another document's diagnostics on `engine` (issue 33).
        self.action_lane = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hf-cache-lint-actions")
        self._unit_locks: dict[str, threading.Lock] = {}  # one run per unit at a time, whatever the lane
        self._locks_guard = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None  # set at initialize, for thread-safe logging
        self.exit_status = 0  # the process's status: `exit` without `shutdown` makes it 1 (the spec)
        self.rest_warmed = False  # the modules of later requests, imported once the first results are out
        # Set once the start-up warm-up (`warm_up`) is over: analyses wait for it, so no two threads import
        # the engine at once (the big-document lane runs beside the engine thread).
        self.warmed = threading.Event()
        self._warming = False
        self.requests_warmed = threading.Event()  # set once the engine thread imported the request modules

    def _start_io_async(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls 2.1's `_start_io_async` with lsp/wire.py's message loop: a bad frame or invalid params get
        an error response and the server keeps reading (pygls's loop goes deaf or stays silent)."""
        from pygls.io_ import StdoutWriter

        from hf_cache_lint.lsp import wire

        self._stop_event = threading.Event()
        source, sink = stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
        reader = wire.PipeReader(source) if wire.pipe_reader_fits(source, sink) else wire.ThreadReader(
            source, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(sink))
        try:
            asyncio.run(wire.run_async(self._stop_event, reader, self.protocol, self.report_server_error))
        except BrokenPipeError:
            log.error("the client closed the connection")
        except SystemExit as exc:  # pygls's `exit` handler: 0 after `shutdown`, else 1 (pygls drops it)
            self.exit_status = exc.code if isinstance(exc.code, int) else 1
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def warm_up(self) -> None:
        """Called by the `initialize` handler: once the answer is written (pygls sends it right after the
        handler returns, in the same loop step), the engine thread imports and exercises what the first
        check needs, while the client reads the answer and sends initialized/didOpen (lsp/startup.py)."""
        if self._warming:
            return
        self._warming = True
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.run_in_executor, self.engine, startup.warm_engine, self.warmed)

    async def imported(self, module: str) -> None:
        """Make sure a later request's module (code actions, hover, completion) is imported. Until the engine
        thread has imported them (`startup.warm_requests`), the import runs there, after whatever warm-up is
        queued: two threads importing the same modules at once can end in `_DeadlockError` (importlib's
        per-module locks), or one can find the other's half-initialised module in sys.modules."""
        if not self.requests_warmed.is_set():
            await asyncio.get_running_loop().run_in_executor(self.engine, importlib.import_module, module)

    def unit_for(self, uri: str) -> Unit | None:
        """The open file or notebook `uri` belongs to (a cell uri gives its notebook)."""
        ws = self.workspace
        notebook = ws.get_notebook_document(cell_uri=uri) or ws.get_notebook_document(notebook_uri=uri)
        if notebook is not None:
            parts = []
            for cell in notebook.cells:
                if cell.kind != types.NotebookCellKind.Code:
                    continue
                doc = ws.text_documents.get(unquote(cell.document))  # pygls keys documents by unquote(uri)
                if doc is not None:
                    parts.append(Part(cell.document, doc.version, doc.source))
            return Unit(notebook.uri, tuple(parts), notebook=True)
        doc = ws.text_documents.get(unquote(uri))
        return Unit(uri, (Part(uri, doc.version, doc.source),)) if doc is not None else None

    def config_for(self, uri: str) -> lsp_settings.FolderConfig:
        folder = lsp_settings.folder_of(uri, [f for f in self.state.folders if f is not None])
        return self.state.folders.get(folder) or self.state.folders.get(None) or lsp_settings.build(
            None, [], lsp_settings.trusted(self.state.init_options))

    @staticmethod
    def too_big(unit: Unit) -> int | None:
        """The unit's length in characters when it is too long to analyse, else None."""
        size = sum(len(p.text) for p in unit.parts)
        return size if size > MAX_DOCUMENT_CHARS else None

    async def results_for(self, unit: Unit) -> Results | None:
        """Findings for this exact snapshot; concurrent callers share one run, none runs twice."""
        await self.settings_ready.wait()
        if self.too_big(unit) is not None:
            return Results({p.uri: () for p in unit.parts})  # to_diagnostics says why
        key = (unit.key, self.state.generation)
        shared = self.state.runs.get(unit.uri)
        if shared is None or shared.key != key or shared.future.cancelled():
            config = self.config_for(unit.uri)
            size = sum(len(p.text) for p in unit.parts)
            if size > BIG_DOCUMENT_CHARS:
                self.big_units.add(unit.uri)
            loop = asyncio.get_running_loop()
            future: asyncio.Future[Results | None]
            if unit.uri in self.big_units:
                future = loop.run_in_executor(self.big_engine, self._analyse, unit, config)
            elif size <= INLINE_DOCUMENT_CHARS and self.warmed.is_set() and self.engine.idle and (
                    lock := self.unit_lock(unit.uri)).acquire(blocking=False):
                try:  # here, at once (INLINE_DOCUMENT_CHARS): awaiting the done future below does not yield
                    future = loop.create_future()
                    with collection_deferred(loop):
                        future.set_result(self._analysed(unit, config))
                finally:
                    lock.release()
            else:
                future = loop.run_in_executor(self.engine, self._analyse, unit, config)
            shared = self.state.runs[unit.uri] = _Shared(key, future)
        shared.waiters += 1
        try:
            results = await asyncio.shield(shared.future)
        finally:
            shared.waiters -= 1
            if shared.waiters == 0 and not shared.future.done():
                # Nobody wants this run any more: drop it if it has not started (a running thread
                # cannot be interrupted; its result is then simply discarded).
                shared.future.cancel()
        if results is not None and unit.uri not in self.state.frozen and unit.uri in self.state.runs:  # not closed
            # After the publish (the caller's, in this loop step; a pull's answer, queued as the step ends).
            self.state.frozen.add(unit.uri)
            asyncio.get_running_loop().call_later(0, self.freeze_heap)
        if not self.rest_warmed:
            self.rest_warmed = True
            # Queued once this loop step is over: the caller converts and publishes in the same step, so the
            # import does not compete with it for the GIL.
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.run_in_executor, self.engine, startup.warm_requests, self.requests_warmed)
        return results

    def unit_lock(self, uri: str) -> threading.Lock:
        with self._locks_guard:
            return self._unit_locks.setdefault(uri, threading.Lock())

    def freeze_heap(self) -> None:
        """Once a unit's first results are out: collect, then freeze what is left (its kept parse tree and what the
        check carries to the next), so that the keystrokes' older-generation collections no longer walk it (on
        generation/utils.py the tree is ~56,000 objects; a generation-2 collection of them took 30-60 ms every
        ~100 keystrokes, bench/README.md, issue 31, tenth session). Frozen objects are never collected: what a later
        keystroke replaces in that tree (a re-parsed statement's nodes, cyclic through their parents) stays until
        the next thaw, at most the frozen tree itself (~70 objects over 120 Enter/join edits on utils.py). A close
        thaws (`_forget_tree`), and so does every FREEZES_BEFORE_THAW-th freeze without one (a freeze also catches
        any other open buffer's tree and a check under way on another lane)."""
        self.state.freezes += 1
        if self.state.freezes >= FREEZES_BEFORE_THAW:
            self.state.freezes = 0
            gc.unfreeze()
        gc.collect()
        gc.freeze()

    def forget_unit(self, uri: str) -> None:
        """A closed unit: its lane, its lock and parso's kept tree of it go (memory returned)."""
        self.state.frozen.discard(uri)
        self.state.freezes = 0  # `_forget_tree` thaws
        self.big_units.discard(uri)
        with self._locks_guard:
            self._unit_locks.pop(uri, None)
        self.engine.submit(_forget_tree, uri_to_path(uri))

    def _analyse(self, unit: Unit, config: lsp_settings.FolderConfig) -> Results | None:
        """Runs in a worker thread. Never raises: a failure is logged and yields no findings for this
        version, so what the editor shows is cleared rather than left at the positions of an older text."""
        if self._warming:  # the big lane too: the engine's imports run on one thread at a time
            self.warmed.wait()
        # A unit that grew past BIG_DOCUMENT_CHARS moves lanes: its run on the other lane may still
        # be going, and parso's incremental tree of one path must not be shared by two runs.
        with self.unit_lock(unit.uri):
            return self._analysed(unit, config)

    def _analysed(self, unit: Unit, config: lsp_settings.FolderConfig) -> Results:
        """The engine's run, its unit's lock held (worker thread, or the loop's for a short check)."""
        from hf_cache_lint.selection import document_settings  # not on the start path

        try:
            settings = document_settings(config.settings, unit.path, config.root)
            if settings is None:  # excluded by the folder's `exclude` / `extend-exclude`
                return Results({p.uri: () for p in unit.parts})
            return analyse_unit(unit, settings, config.context)
        except Exception:
            self.log_error(f"analysis of {unit.uri} failed:\n{traceback.format_exc()}")
            return Results({p.uri: () for p in unit.parts})

    def snapshot(self, unit_uri: str) -> Unit | None:
        """What to analyse: the open text, or with `run: onSave` the text as last opened or saved."""
        if self.config_for(unit_uri).settings.run == "onSave" and unit_uri in self.state.saved:
            return self.state.saved[unit_uri]
        return self.unit_for(unit_uri)

    def snapshot_key(self, unit_uri: str) -> tuple[Any, ...] | None:
        unit = self.snapshot(unit_uri)
        return None if unit is None else (unit.key, self.state.generation)

    def mark_saved(self, unit_uri: str) -> None:
        if (unit := self.unit_for(unit_uri)) is not None:
            self.state.saved[unit_uri] = unit

    def report_server_error(self, error: Exception, source: Any) -> None:
        """pygls shows every handler failure as a popup (window/showMessage); log it instead."""
        self.log_error(f"{getattr(source, '__name__', source)}: {error!r}")

    def log_error(self, message: str) -> None:
        """Log to the client's output (window/logMessage); safe from any thread."""
        log.error("%s", message)
        if self.loop is None or self.loop.is_closed():
            return  # not initialised or shutting down: stderr has it already
        # pygls writes from the loop thread only: hop there from the engine thread.
        self.loop.call_soon_threadsafe(
            self.window_log_message, types.LogMessageParams(types.MessageType.Error, message))

    def folder_path(self, folder_uri: str | None) -> Path | None:
        return Path(uri_to_path(folder_uri)) if folder_uri and folder_uri.startswith("file:") else None

    def supports(self, path: str) -> bool:
        """A client capability by dotted path, e.g. "text_document.diagnostic"."""
        node: Any = self.client_capabilities
        for name in path.split("."):
            node = getattr(node, name, None)
            if node is None:
                return False
        return bool(node)

    @property
    def pull_diagnostics(self) -> bool:
        """Like ruff and pylance: pull when the client can, else push (Neovim 0.7, eglot, ALE)."""
        return self.supports("text_document.diagnostic")


def collection_deferred(loop: asyncio.AbstractEventLoop) -> contextlib.AbstractContextManager[None]:
    """No cyclic collection until the results are out (engine/base/collector.py `gc_paused`): a push publishes in this
    loop step, a pull's answer is written by its task's done callback, queued as the step ends. The young
    collection the check made due (~0.4 ms of a 2.6 ms keystroke on the 100-line script, bench/lsp_latency.py)
    then runs after both, between keystrokes: on a zero-delay timer, which the loop runs in the next step after
    the callbacks queued before it (asyncio's `_run_once` appends due timers to the ready queue)."""
    from hf_cache_lint.engine.base.collector import gc_paused  # the engine's, loaded by then: not at start-up

    return gc_paused(resume_later=partial(loop.call_later, 0))


def _forget_tree(path: str) -> None:
    """On the engine thread: parso's kept tree of a closed buffer, and the memory it held. The tree was frozen
    with the rest of the heap (`HfCacheLintServer.freeze_heap`): thawed, collected, and what lives frozen again
    (start-up's objects, the other buffers' trees: ~30-50 ms on a heap with utils.py open, once per close)."""
    if "hf_cache_lint.engine.interpreter.interp" in sys.modules:
        from hf_cache_lint.engine.interpreter.interp import forget

        forget(path)
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _trim_malloc()


def _trim_malloc() -> None:
    """Give freed heap pages back to the system (glibc keeps them otherwise: RSS stays high after close)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl): nothing to trim
        pass


def build_server() -> HfCacheLintServer:
    from hf_cache_lint.lsp import handlers

    server = HfCacheLintServer()
    handlers.register(server)
    return server


def start(tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> None:
    """Serve on stdio (default) or TCP; `hf-cache-lint serve` calls this."""
    # stderr only: stdout is the protocol stream. pygls logs every registration at INFO.
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    server = build_server()
    # pygls + lsprotocol leave ~60k long-lived objects (their classes, the registry) that every full
    # collection would walk while a parse allocates ~100k nodes: move them out of the collector's
    # sight. (Raising the thresholds instead lets parso's cyclic trees pile up: 280 MB in the bench.)
    # Until the warm-up has imported the engine, the collector collects young objects only (lsp/startup.py).
    gc.freeze()
    if tcp:
        server.start_tcp(host, port)
    else:
        server.start_io()
    exit_now(server.exit_status)


def exit_now(status: int) -> None:
    """End the process at once: an analysis still running in the engine thread (which nothing can
    interrupt) must not hold the exit back, as the interpreter's join of worker threads would."""
    # Missing while the engine thread is still importing the bridge (an exit during the warm-up): no folder yet.
    remove = getattr(sys.modules.get("hf_cache_lint.checking.jedi_bridge"), "remove_private_cache_dir", None)
    if remove is not None:
        remove()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
