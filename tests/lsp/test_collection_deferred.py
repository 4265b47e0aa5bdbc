"""The inline check's collection deferred past the publish (lsp/memory.py `collection_deferred`): the collector
comes back on after what the loop step queued (a pull's answer is written by such a callback), always, and only
when the block found it on.

In-process, on a plain asyncio loop: the pytest-lsp suite drives the real server for the rest.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Iterator

import pytest

from hf_cache_lint.engine.base.collector import due_generation
from hf_cache_lint.lsp.memory import collection_deferred


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


async def _after_the_timers_set_so_far() -> None:
    """Until a zero-delay timer set now has run: the loop runs due timers by deadline, and this one's is no
    earlier than any set before it (its clock only moves forward; of two equal ones, the first set runs first)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.call_later(0, done.set_result, None)
    await done


def test_off_until_the_callbacks_the_step_queued_ran_then_on_with_the_due_collection_done(
        collector_on: None) -> None:
    async def run() -> tuple[bool, bool, bool, bool, int]:
        loop = asyncio.get_running_loop()
        seen_by_queued: list[bool] = []
        with collection_deferred(loop):
            inside = gc.isenabled()
            garbage = [[i] for i in range(10 * gc.get_threshold()[0])]  # makes a young collection due
            del garbage
        after_block = gc.isenabled()
        # As a pull's answer: a callback queued once the block is over, in the same step (a task's done callback).
        loop.call_soon(lambda: seen_by_queued.append(gc.isenabled()))
        await _after_the_timers_set_so_far()
        return inside, after_block, seen_by_queued == [False], gc.isenabled(), gc.get_count()[0]

    inside, after_block, queued_saw_it_off, after, young = asyncio.run(run())
    assert (inside, after_block, queued_saw_it_off, after) == (False, False, True, True)
    assert young < gc.get_threshold()[0]


def test_an_error_in_the_block_still_turns_it_back_on(collector_on: None) -> None:
    async def run() -> bool:
        loop = asyncio.get_running_loop()
        with pytest.raises(RuntimeError), collection_deferred(loop):
            raise RuntimeError("the check failed")
        await _after_the_timers_set_so_far()
        return gc.isenabled()

    assert asyncio.run(run()) is True


def test_found_off_it_is_left_off_for_whoever_turned_it_off(collector_on: None) -> None:
    async def run() -> bool:
        loop = asyncio.get_running_loop()
        gc.disable()  # another thread's pause (engine/base/collector.py gc_paused on the big-document lane)
        with collection_deferred(loop):
            pass
        await _after_the_timers_set_so_far()
        return gc.isenabled()

    assert asyncio.run(run()) is False


class _Statement:
    """A re-parsed statement's nodes: cyclic (parso's nodes know their parent), kept until the next keystroke
    replaces them, as the buffer's kept tree does."""

    def __init__(self) -> None:
        self.children = [_Leaf(self)]


class _Leaf:
    def __init__(self, parent: _Statement) -> None:
        self.parent = parent


def test_what_dies_after_surviving_a_young_collection_is_collected_at_the_collectors_pace(
        collector_on: None) -> None:
    """Keystroke after keystroke on the inline path, the statement the previous one parsed becomes cyclic garbage
    after it survived that keystroke's young collection: the older generations must get collected too (issue 31:
    with `gc.collect(0)` alone, nothing else ever collected them and the server grew at every keystroke)."""
    alive: weakref.WeakSet[_Statement] = weakref.WeakSet()
    keystrokes = 400

    async def run() -> None:
        loop = asyncio.get_running_loop()
        kept = _Statement()
        for _ in range(keystrokes):
            with collection_deferred(loop):
                # A check's worth of cyclic garbage (what is freed at once leaves the count): a collection due.
                garbage = [_Statement() for _ in range(gc.get_threshold()[0])]
                del garbage
                kept = _Statement()  # the previous one is garbage now
                alive.add(kept)
            await _after_the_timers_set_so_far()

    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # CPython's defaults (a test run may have changed them)
    gc.collect()
    try:
        asyncio.run(run())
        left = len(alive)  # before any other collection
    finally:
        gc.set_threshold(*saved)
    # At most what the schedule leaves between collections of an older generation (~11 young collections
    # between two of generation 1, ~11 of those between two full ones), far from one per keystroke.
    assert left < keystrokes // 4, left


@pytest.mark.parametrize(("counts", "generation"), [
    ((701, 3, 4), 0), ((701, 11, 4), 1), ((701, 11, 11), 2), ((701, 3, 11), 2)])
def test_the_due_generation_is_the_oldest_past_its_threshold(counts: tuple[int, int, int], generation: int) -> None:
    expected = 1 if sys.version_info >= (3, 14) else generation  # 3.14's incremental collector: young + increment
    assert due_generation(counts, (700, 10, 10)) == expected
