"""Telling the client to ask again (`workspace/diagnostic/refresh`): one request on its way at a
time, and one more after it when something changed while it travelled (the client's pull for
the first may have started before that change)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable


class Refresh:
    def __init__(self, send: Callable[[], Awaitable[None]]) -> None:
        self._send = send
        self._on_its_way = False
        self._wanted = False  # another is to follow the one on its way

    async def ask(self, unless: Callable[[], bool] = lambda: False) -> None:
        """Asked, `unless()` says it need not be when it comes to be sent."""
        if unless():
            return
        self._wanted = True
        if self._on_its_way:
            return
        self._on_its_way = True
        try:
            while self._wanted:
                self._wanted = False
                await self._send()
        finally:
            self._on_its_way = False
