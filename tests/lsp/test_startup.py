"""The server's start-up (lsp/startup.py): the collector's thresholds come back, the warm-up always ends.

In-process: the pytest-lsp suite starts the real server (`python -m hf_cache_lint.lsp`) for everything else.
"""

from __future__ import annotations

import gc
import sys
import threading
import types
from collections.abc import Iterator

import pytest

from hf_cache_lint.lsp import startup


@pytest.fixture
def collector() -> Iterator[None]:
    """Whatever a test does to the collector is undone (thresholds, frozen objects)."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    startup._saved = None


def test_the_deferral_ends_with_its_block_when_no_warm_up_ran(collector: None) -> None:
    gc.set_threshold(700, 10, 10)
    with startup.deferred_old_collections():
        assert gc.get_threshold() == startup.START_THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_the_warm_up_freezes_and_restores_the_thresholds(collector: None) -> None:
    gc.set_threshold(700, 10, 10)
    done = threading.Event()
    with startup.deferred_old_collections():
        startup.warm_engine(done)
        assert done.is_set()
        assert gc.get_threshold() == (700, 10, 10)  # restored by the warm-up, not by the end of the block
        assert gc.get_freeze_count() > 0
        assert "hf_cache_lint.rules" in sys.modules  # the one-line check reached the rules


def test_a_failing_warm_up_still_ends_the_start_up(collector: None, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    from hf_cache_lint.lsp import documents

    def boom() -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(documents, "warm_up", boom)
    gc.set_threshold(700, 10, 10)
    done = threading.Event()
    with startup.deferred_old_collections():
        startup.warm_engine(done)  # logs, never raises: the handshake goes on
        assert done.is_set() and gc.get_threshold() == (700, 10, 10)
    assert "warming the engine failed" in caplog.text


def test_serve_leaves_the_collector_as_it_found_it(collector: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hf-cache-lint serve` in-process with a server that returns (as tests run it): no deferral left behind."""
    from hf_cache_lint import cli

    fake = types.ModuleType("hf_cache_lint.lsp.server")
    fake.start = lambda **kw: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "hf_cache_lint.lsp.server", fake)
    gc.set_threshold(700, 10, 10)
    assert cli.main(["serve"]) == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_request_modules_are_imported_on_the_engine_thread_until_it_warmed_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hover or code action before `warm_requests` finished imports behind the warm-up, on the engine thread
    (two threads importing the same modules can deadlock); after it, the handler imports nothing there."""
    import asyncio
    import importlib

    from hf_cache_lint.lsp.server import HfCacheLintServer

    server = HfCacheLintServer()
    threads: list[str] = []

    def recording(name: str) -> types.ModuleType:
        threads.append(threading.current_thread().name)
        return types.ModuleType(name)

    monkeypatch.setattr(importlib, "import_module", recording)
    try:
        asyncio.run(server.imported("hf_cache_lint.lsp.hover"))
        assert len(threads) == 1 and threads[0].startswith("hf-cache-lint-engine"), threads
        startup.warm_requests(server.requests_warmed)  # the real warm-up (not patched: `from ... import`)
        assert server.requests_warmed.is_set()
        asyncio.run(server.imported("hf_cache_lint.lsp.hover"))
        assert len(threads) == 1, threads
    finally:
        server.engine.shutdown()
        server.big_engine.shutdown()
