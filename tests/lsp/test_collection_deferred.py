"""The inline check's collection deferred past the publish (lsp/server.py `collection_deferred`): the collector
comes back on after what the loop step queued (a pull's answer is written by such a callback), always, and only
when the block found it on.

In-process, on a plain asyncio loop: the pytest-lsp suite drives the real server for the rest.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from hf_cache_lint.lsp.server import collection_deferred


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
