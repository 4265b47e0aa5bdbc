"""The heap frozen after a unit's first results (lsp/server.py `HfCacheLintServer.freeze_heap`, lsp/memory.py):
once per open unit, after its results; what it froze is kept only until a close thaws (`forget_tree`) or the bound
of freezes without one (FREEZES_BEFORE_THAW) is reached.

In-process, on a plain asyncio loop with the engine's run replaced: the pytest-lsp suite drives the real server.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from hf_cache_lint.lsp import memory
from hf_cache_lint.lsp.documents import Part, Results, Unit
from hf_cache_lint.lsp.memory import FREEZES_BEFORE_THAW, forget_tree
from hf_cache_lint.lsp.server import HfCacheLintServer

URI = "file:///tmp/heap_freeze_probe.py"


@pytest.fixture
def thawed() -> Iterator[None]:
    """Whatever a test froze is thawed again (the suite's process must not keep its objects)."""
    yield
    gc.unfreeze()


class _Cycle:
    """A cyclic object, as a parse tree's node (a child knows its parent): only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def _dropped_cycle() -> weakref.ref[_Cycle]:
    cycle = _Cycle()
    return weakref.ref(cycle)


async def _timers_ran() -> None:
    """Until the zero-delay timers scheduled so far (`results_for`'s freeze) have run: the loop moves every expired
    timer to its ready queue in one pass, so a zero-delay timer of ours, scheduled after them, completes after they
    ran."""
    done = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_later(0, done.set_result, None)
    await done


def _unit(version: int) -> Unit:
    return Unit(URI, (Part(URI, version, f"x = {version}\n"),))


def test_the_first_results_of_a_unit_freeze_once_and_again_after_its_close(
        thawed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> list[int]:
        ls = HfCacheLintServer()
        ls.settings_ready.set()
        frozen_at: list[int] = []
        monkeypatch.setattr(ls, "_analysed", lambda unit, config: Results({p.uri: () for p in unit.parts}))
        monkeypatch.setattr(ls, "freeze_heap", lambda: frozen_at.append(version))
        monkeypatch.setattr(memory, "forget_tree", lambda path: None)
        for version in (1, 2, 3):
            await ls.results_for(_unit(version))
            await _timers_ran()
        ls.state.runs.pop(URI)  # the close (lsp/diagnostics.py clear)
        ls.forget_unit(URI)
        version = 4
        await ls.results_for(_unit(version))
        await _timers_ran()
        ls.engine.shutdown()
        return frozen_at

    assert asyncio.run(run()) == [1, 4]


def test_a_frozen_cycle_lives_until_a_close_thaws_and_the_rest_is_frozen_again(thawed: None) -> None:
    ls = HfCacheLintServer()
    dead = _dropped_cycle()
    gc.collect()
    assert dead() is None  # the collector frees a cycle that was not frozen
    alive = _Cycle()
    kept = weakref.ref(alive)
    ls.freeze_heap()
    del alive
    gc.collect()
    assert kept() is not None  # frozen: no collection sees it
    forget_tree("/tmp/heap_freeze_probe_never_opened.py")
    assert kept() is None
    assert gc.get_freeze_count() > 0  # what lives is frozen again


def test_the_bound_of_freezes_without_a_close_thaws(thawed: None) -> None:
    ls = HfCacheLintServer()
    alive = _Cycle()
    kept = weakref.ref(alive)
    ls.freeze_heap()
    del alive
    for _ in range(FREEZES_BEFORE_THAW - 2):
        ls.freeze_heap()
    gc.collect()
    assert kept() is not None
    ls.freeze_heap()  # the FREEZES_BEFORE_THAW-th
    assert kept() is None
    assert gc.get_freeze_count() > 0
