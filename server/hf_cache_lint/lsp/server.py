"""The language server object: open units, settings per folder, and the one engine worker thread.

Which thread a check runs on: lsp/lanes.py; the heap frozen and thawed between checks: lsp/memory.py; what a
unit is and how it is analysed: lsp/documents.py; a folder's settings: lsp/settings.py."""

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
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from hf_cache_lint import __version__
from hf_cache_lint.lsp import memory, startup
from hf_cache_lint.lsp import settings as lsp_settings
from hf_cache_lint.lsp.documents import Results, Unit, analyse_unit, too_big, unit_in, uri_to_path
from hf_cache_lint.lsp.lanes import BIG_DOCUMENT_CHARS, Lane, lane_for
from hf_cache_lint.lsp.protocol import Protocol

if TYPE_CHECKING:  # fixcheck loads with the first code action (lsp/actions.py), not at start-up
    from hf_cache_lint.fixcheck import Verifier

log = logging.getLogger(__name__)

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    # lsprotocol 2025 clients cannot read a selector without `notebook=` (docs/editors.md).
    notebook_selector=[types.NotebookDocumentFilterWithNotebook(
        notebook="*", cells=[types.NotebookCellLanguage(language="python")])],
    save=True,
)


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
        return unit_in(self.workspace, uri)

    def config_for(self, uri: str) -> lsp_settings.FolderConfig:
        """What the folder of `uri` analyses with."""
        return lsp_settings.config_for(self.state.folders, self.state.init_options, uri)

    @staticmethod
    def too_big(unit: Unit) -> int | None:
        """The unit's length in characters when it is too long to analyse, else None."""
        return too_big(unit)

    async def results_for(self, unit: Unit) -> Results | None:
        """Findings for this exact snapshot; concurrent callers share one run, none runs twice."""
        await self.settings_ready.wait()
        if self.too_big(unit) is not None:
            return Results({p.uri: () for p in unit.parts})  # to_diagnostics says why
        key = (unit.key, self.state.generation)
        shared = self.state.runs.get(unit.uri)
        if shared is None or shared.key != key or shared.future.cancelled():
            shared = self.state.runs[unit.uri] = _Shared(key, self._started(unit))
        shared.waiters += 1
        try:
            results = await asyncio.shield(shared.future)
        finally:
            shared.waiters -= 1
            if shared.waiters == 0 and not shared.future.done():
                # Nobody wants this run any more: drop it if it has not started (a running thread
                # cannot be interrupted; its result is then simply discarded).
                shared.future.cancel()
        self._after_results(unit.uri, results)
        return results

    def _after_results(self, uri: str, results: Results | None) -> None:
        """What follows results, queued to run after they are out: the heap frozen after a unit's first, the later
        requests' modules imported after the server's first."""
        if results is not None and uri not in self.state.frozen and uri in self.state.runs:  # not closed
            # After the publish (the caller's, in this loop step; a pull's answer, queued as the step ends).
            self.state.frozen.add(uri)
            asyncio.get_running_loop().call_later(0, self.freeze_heap)
        if not self.rest_warmed:
            self.rest_warmed = True
            # Queued once this loop step is over: the caller converts and publishes in the same step, so the
            # import does not compete with it for the GIL.
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.run_in_executor, self.engine, startup.warm_requests, self.requests_warmed)

    def _started(self, unit: Unit) -> asyncio.Future[Results | None]:
        """The unit's check, started on its lane (lsp/lanes.py)."""
        config = self.config_for(unit.uri)
        size = sum(len(p.text) for p in unit.parts)
        if size > BIG_DOCUMENT_CHARS:
            self.big_units.add(unit.uri)
        loop = asyncio.get_running_loop()
        lane = lane_for(size, unit.uri in self.big_units, self.warmed.is_set(), self.engine.idle)
        if lane == "big":
            return loop.run_in_executor(self.big_engine, self._analyse, unit, config)
        if lane == "inline" and (lock := self.unit_lock(unit.uri)).acquire(blocking=False):
            try:  # here, at once (INLINE_DOCUMENT_CHARS): awaiting the done future does not yield
                future: asyncio.Future[Results | None] = loop.create_future()
                with memory.collection_deferred(loop):
                    future.set_result(self._analysed(unit, config))
            finally:
                lock.release()
            return future
        return loop.run_in_executor(self.engine, self._analyse, unit, config)

    def unit_lock(self, uri: str) -> threading.Lock:
        with self._locks_guard:
            return self._unit_locks.setdefault(uri, threading.Lock())

    def freeze_heap(self) -> None:
        """Once a unit's first results are out: collect, then freeze what is left (lsp/memory.py)."""
        memory.freeze_heap(self.state)

    def forget_unit(self, uri: str) -> None:
        """A closed unit: its lane, its lock and parso's kept tree of it go (memory returned)."""
        self.state.frozen.discard(uri)
        self.state.freezes = 0  # `forget_tree` thaws
        self.big_units.discard(uri)
        with self._locks_guard:
            self._unit_locks.pop(uri, None)
        self.engine.submit(memory.forget_tree, uri_to_path(uri))

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
