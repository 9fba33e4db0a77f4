"""Waiting in tests: on an event, with a deadline, failing with what was awaited and what was seen.

A bare `while not ...: sleep` loop stalled CI for 90 minutes when what it waited for never came.
Every wait here ends: when `ready()` holds (checked again on each event), or with an
AssertionError naming what it waited for and how things stood then.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

TIMEOUT_S = 30.0
# Files (a runner's pid file, a marker a job writes): the standard library has no portable
# notification of a file appearing, so these are looked at this often, up to the deadline.
FILE_POLL_S = 0.02


def _failure(what: str, timeout: float, seen: Callable[[], Any]) -> AssertionError:
    return AssertionError(f"waited {timeout:g} s for {what}; saw {seen()!r}")


async def until(
    ready: Callable[[], T],
    *,
    what: str,
    wake: Callable[[], Awaitable[Any]],
    seen: Callable[[], Any] = lambda: None,
    timeout: float = TIMEOUT_S,
) -> T:
    """`ready()`'s value once it is truthy, checked now and after each `wake()`.

    `wake()` must start listening when called (not when first awaited), so that nothing
    happening between the check and the wait is missed: `notification`, `any_done`, `file_poll`
    and an `asyncio.Event().wait` are such wakes.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := ready()):
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise _failure(what, timeout, seen)
        try:
            await asyncio.wait_for(wake(), remaining)
        except TimeoutError:
            pass  # checked once more, then failed
    return value


async def until_notified(
    condition: asyncio.Condition,
    ready: Callable[[], T],
    *,
    what: str,
    seen: Callable[[], Any] = lambda: None,
    timeout: float = TIMEOUT_S,
) -> T:
    """`ready()`'s value once it is truthy, checked now and each time `condition` is notified."""
    async with condition:
        try:
            return await asyncio.wait_for(condition.wait_for(ready), timeout)
        except TimeoutError:
            raise _failure(what, timeout, seen) from None


def notification(client, method: str) -> Callable[[], Awaitable[Any]]:
    """A wake on the next `method` notification pytest-lsp's client receives.

    pytest-lsp keeps one waiter per method: two waits on one method at once would starve the
    first. The waiter is shielded: cancelling it at the deadline would leave pytest-lsp a
    cancelled future to resolve, an error inside the client."""

    def wake() -> Awaitable[Any]:
        return asyncio.shield(asyncio.wrap_future(client.protocol.wait_for_notification(method)))

    return wake


async def reconfigured(client, section: str, send: Callable[[], None], timeout: float = TIMEOUT_S) -> None:
    """`send()` a settings change, then wait until the client has answered the server's
    `workspace/configuration` for `section` (on didChangeConfiguration the server asks for its
    settings): a fixed half second was a guess.

    What the test sends next reaches the server after that answer. The event is set one turn of
    the loop after the answer is made, so that an asynchronous handler (pygls sends its result
    from the task's done callback, queued behind it) has written it too."""
    loop = asyncio.get_running_loop()
    answered = asyncio.Event()
    answer = client.get_configuration

    def answering(**kwargs):
        value = answer(**kwargs)
        if kwargs.get("section") == section:
            loop.call_soon(answered.set)
        return value

    client.get_configuration = answering
    try:
        send()
        await until(
            answered.is_set,
            what=f"the server asking for the new settings ({section})",
            wake=answered.wait,
            timeout=timeout,
        )
    finally:
        del client.get_configuration  # the class's method again


def any_done(futures: Iterable[asyncio.Future]) -> Callable[[], Awaitable[Any]]:
    """A wake when one more of `futures` is done."""
    futures = list(futures)

    def wake() -> Awaitable[Any]:
        pending = [f for f in futures if not f.done()]
        return asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED) if pending else asyncio.sleep(0)

    return wake


def file_poll() -> Awaitable[None]:
    """A wake for a condition on files (see FILE_POLL_S)."""
    return asyncio.sleep(FILE_POLL_S)


def until_sync(
    ready: Callable[[], T],
    *,
    what: str,
    seen: Callable[[], Any] = lambda: None,
    timeout: float = TIMEOUT_S,
    poll_s: float = 0.1,
) -> T:
    """`until` for code without an event loop: a process, a socket. `ready()` may raise OSError
    (not yet: tried again)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = ready()
        except OSError:
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _failure(what, timeout, seen)
        time.sleep(poll_s)
