"""tests/waiting.py: a wait ends when its condition holds, or at its deadline saying what it
awaited and what it saw (a wait without a deadline stalled CI for 90 minutes)."""

import asyncio
import time

import pytest
from waiting import any_done, until, until_notified, until_sync


async def test_until_returns_the_value_once_an_event_makes_it_ready():
    box: list[int] = []
    event = asyncio.Event()

    def wake():
        event.clear()
        return event.wait()

    async def producer():
        for n in range(3):
            box.append(n)
            event.set()
            await asyncio.sleep(0)

    task = asyncio.ensure_future(producer())
    assert await until(lambda: box if len(box) == 3 else None, what="three items", wake=wake, timeout=5) == [0, 1, 2]
    await task


async def test_until_fails_at_its_deadline_saying_what_it_awaited_and_saw():
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"waited 0.2 s for the impossible; saw 'the state'"):
        await until(
            lambda: False, what="the impossible", wake=asyncio.Event().wait, seen=lambda: "the state", timeout=0.2
        )
    assert time.monotonic() - start < 5


async def test_until_notified_wakes_on_the_condition_and_has_a_deadline():
    condition, box = asyncio.Condition(), []

    async def notify():
        async with condition:
            box.append(1)
            condition.notify_all()

    asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(notify()))
    assert await until_notified(condition, lambda: box, what="an item", timeout=5) == [1]
    with pytest.raises(AssertionError, match="waited 0.1 s for two items; saw 1"):
        await until_notified(condition, lambda: len(box) == 2, what="two items", seen=lambda: len(box), timeout=0.1)


async def test_any_done_wakes_when_one_more_future_is_done():
    loop = asyncio.get_running_loop()
    futures = [loop.create_future() for _ in range(3)]
    loop.call_soon(futures[1].set_result, "b")
    assert await until(
        lambda: [f.result() for f in futures if f.done()], what="one answer", wake=any_done(futures), timeout=5
    ) == ["b"]


def test_until_sync_retries_what_raises_oserror_until_the_deadline():
    tries = []

    def connect():
        tries.append(1)
        if len(tries) < 3:
            raise ConnectionRefusedError
        return "connected"

    assert until_sync(connect, what="a connection", timeout=5, poll_s=0.01) == "connected"
    with pytest.raises(AssertionError, match="waited 0.05 s for a listener; saw 'exit code 1'"):
        until_sync(lambda: None, what="a listener", seen=lambda: "exit code 1", timeout=0.05, poll_s=0.01)
