"""Where a check runs (lsp/server.py `results_for`, lsp/lanes.py `lane_for`): a short document on the event loop
thread when the engine thread is idle, else on the engine thread (busy, or the unit's run held elsewhere), a long
one on the engine thread, a big one on its own lane; every lane gives the same findings."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from hf_cache_lint.lsp import server as lsp_server
from hf_cache_lint.lsp import settings as lsp_settings
from hf_cache_lint.lsp.documents import Part, Unit
from hf_cache_lint.lsp.lanes import BIG_DOCUMENT_CHARS, INLINE_DOCUMENT_CHARS
from hf_cache_lint.lsp.server import HfCacheLintServer

CODE = ('from transformers import AutoModelForCausalLM, DynamicCache\n'
        'model = AutoModelForCausalLM.from_pretrained("m")\n'
        'model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')


def padded(chars: int) -> str:
    """CODE, then comment lines up to `chars` characters."""
    line = "# " + "x" * 77 + "\n"
    return CODE + line * ((chars - len(CODE)) // len(line) + 1)


@pytest.fixture
def ls(monkeypatch: pytest.MonkeyPatch) -> tuple[HfCacheLintServer, list[str]]:
    server = HfCacheLintServer()
    server.settings_ready.set()
    server.warmed.set()  # as after the start-up warm-up
    server.rest_warmed = True
    server.state.folders[None] = lsp_settings.build(None, [])
    # Not the heap freeze after a unit's first results (test_heap_freeze.py): this process's heap stays unfrozen.
    monkeypatch.setattr(server, "freeze_heap", lambda: None)
    ran: list[str] = []
    real = lsp_server.analyse_unit

    def recording(*args: Any, **kwargs: Any) -> Any:
        thread = threading.current_thread()
        ran.append("loop" if thread is threading.main_thread() else thread.name.rsplit("_", 1)[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(lsp_server, "analyse_unit", recording)
    return server, ran


def unit(text: str, version: int = 1, name: str = "a") -> Unit:
    uri = f"file:///tmp/lanes/{name}.py"
    return Unit(uri, (Part(uri, version, text),))


def codes(results: Any) -> list[str]:
    return sorted(f.code for found in results.values() for f in found)


def test_short_document_idle_engine_runs_on_the_loop(ls: tuple[HfCacheLintServer, list[str]]) -> None:
    server, ran = ls
    results = asyncio.run(server.results_for(unit(CODE)))
    assert ran == ["loop"] and "HFC001" in codes(results)


def test_busy_engine_or_held_unit_keeps_the_thread(ls: tuple[HfCacheLintServer, list[str]],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    server, ran = ls
    release = threading.Event()
    real_submit = server.engine.submit
    queued = asyncio.Event()  # binds to asyncio.run's loop at its first wait (Python >= 3.10)

    def submit(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        future = real_submit(fn, *args, **kwargs)
        if fn == server._analyse:  # results_for's run, handed to the engine thread (on the loop thread)
            queued.set()
        return future

    monkeypatch.setattr(server.engine, "submit", submit)

    async def submitted(task: asyncio.Future[Any]) -> None:
        """Wait until `task` handed its run to the engine thread, or fail if it finished without."""
        queued.clear()
        waiter = asyncio.ensure_future(queued.wait())
        await asyncio.wait((waiter, task), return_when=asyncio.FIRST_COMPLETED)
        assert waiter.done(), "results_for finished without queueing a run on the engine thread"

    async def go() -> tuple[list[str], list[str]]:
        blocker = server.engine.submit(release.wait)  # a fix verification, say, still running
        try:  # a failed assertion must not leave the engine thread blocked: exit would wait on it forever
            assert not server.engine.idle
            task = asyncio.ensure_future(server.results_for(unit(CODE)))
            await submitted(task)  # its run waits behind the blocker
            assert ran == [] and not task.done()
        finally:
            release.set()
        first = codes(await task)
        blocker.result()
        assert server.engine.idle
        with server.unit_lock(unit(CODE).uri):  # the unit's run is going on elsewhere (an upgrade report)
            task = asyncio.ensure_future(server.results_for(unit(CODE, version=2)))
            await submitted(task)  # queued on the engine thread, not run on the loop under another's lock
        return first, codes(await task)

    first, second = asyncio.run(go())
    assert ran == ["hf-cache-lint-engine", "hf-cache-lint-engine"]
    assert first == second and "HFC001" in first


def test_long_and_big_documents_leave_the_loop(ls: tuple[HfCacheLintServer, list[str]]) -> None:
    server, ran = ls

    async def go() -> list[list[str]]:
        return [codes(await server.results_for(unit(padded(n), name=str(n))))
                for n in (INLINE_DOCUMENT_CHARS - 200, INLINE_DOCUMENT_CHARS + 200, BIG_DOCUMENT_CHARS + 200)]

    found = asyncio.run(go())
    assert ran == ["loop", "hf-cache-lint-engine", "hf-cache-lint-engine-big"]
    assert found[0] == found[1] == found[2] and "HFC001" in found[0]
