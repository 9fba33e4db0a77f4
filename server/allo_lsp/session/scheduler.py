"""What to analyse next: one analysis at a time, of the newest text, the edited documents first.

An edit asks for its document to be analysed; if nothing runs, it starts at once (no fixed
debounce: the user sees the analysis, not a wait). Edits that arrive while an analysis runs
coalesce: the document is analysed once more afterwards, on its newest text, however many edits
came (latest wins; a burst of keystrokes never queues work). The documents being edited come
before background work (the workspace's other files), and the one edited last comes first.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


class AnalysisQueue:
    """`run(key)` analyses what `key` names (a document's URI) as it is when called. Keys asked for
    with `request` are run before those added with `background`, newest request first."""

    def __init__(self, run: Callable[[str], Awaitable[None]], failed: Callable[[str, BaseException], None]) -> None:
        self._run = run
        self._failed = failed
        self._wanted: dict[str, float] = {}  # key -> when it may run (a debounce); in the order asked
        self._background: dict[str, None] = {}  # an ordered set
        self._wake = asyncio.Event()
        self._worker: asyncio.Task | None = None
        self.running: str | None = None
        self._ran = asyncio.Condition()  # notified after each analysis (and by `news`)
        self.changes = 0  # how many times it was notified
        self._waiting: dict[str, int] = {}  # key -> how many wait for its next analysis

    def request(self, key: str, delay_s: float = 0.0) -> None:
        self._wanted.pop(key, None)  # moved to the end: the newest request runs first
        self._wanted[key] = time.monotonic() + delay_s
        self._background.pop(key, None)
        self._start()

    def background(self, keys) -> None:
        for key in keys:
            if key not in self._wanted and key != self.running:
                self._background[key] = None
        self._start()

    def forget(self, key: str) -> None:
        self._wanted.pop(key, None)
        self._background.pop(key, None)

    def is_pending(self, key: str) -> bool:
        """Asked for and not yet done (running, or to run)."""
        return key in self._wanted or key == self.running

    async def until(self, done: Callable[[], bool], timeout_s: float, key: str | None = None) -> bool:
        """Wait until `done()`, checked after each analysis, for at most `timeout_s`; whether it
        holds. Counted meanwhile as waiting for `key`'s analysis (`waits_for`)."""
        if key is not None:
            self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with self._ran:
                await asyncio.wait_for(self._ran.wait_for(done), timeout_s)
            return True
        except asyncio.TimeoutError:
            return False
        finally:
            if key is not None:
                self._waiting[key] -= 1

    async def next_news(self, timeout_s: float) -> bool:
        """Wait for the next analysis or `news`, for at most `timeout_s`."""
        seen = self.changes
        return await self.until(lambda: self.changes != seen, timeout_s)

    def waits_for(self, key: str) -> bool:
        return self._waiting.get(key, 0) > 0

    async def news(self) -> None:
        """Something those waiting look at changed without an analysis (a file on disk)."""
        async with self._ran:
            self.changes += 1
            self._ran.notify_all()

    def idle(self) -> bool:
        return self.running is None and not self._wanted and not self._background

    def _start(self) -> None:
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._work())

    def _next(self) -> tuple[str | None, float]:
        """The key to run now, or None and how long until one may run."""
        now, wait = time.monotonic(), float("inf")
        for key in reversed(self._wanted):
            at = self._wanted[key]
            if at <= now:
                del self._wanted[key]
                return key, 0.0
            wait = min(wait, at - now)
        if self._background and wait == float("inf"):  # background only when no edit waits
            key = next(iter(self._background))
            del self._background[key]
            return key, 0.0
        return None, wait

    async def _work(self) -> None:
        while True:
            self._wake.clear()
            key, wait = self._next()
            if key is None:
                if wait == float("inf"):
                    return  # nothing to do: the next request starts a worker
                try:
                    await asyncio.wait_for(self._wake.wait(), wait)
                except asyncio.TimeoutError:
                    pass
                continue
            self.running = key
            try:
                await self._run(key)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one document's failure must not stop the others'
                self._failed(key, exc)
            finally:
                self.running = None
            await self.news()
