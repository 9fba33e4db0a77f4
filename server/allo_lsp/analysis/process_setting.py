"""A setting of the whole interpreter (the GIL's switch interval, the recursion limit) changed
while any of several concurrent analyses needs it, and given back when the last one ends: each
analysis restoring what it saw would leave another's value behind."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class WhileAnyRuns(Generic[T]):
    def __init__(self, get: Callable[[], T], put: Callable[[T], object], choose: Callable[[T], T]) -> None:
        self._get, self._put, self._choose = get, put, choose  # choose: the saved value -> the one to use
        self._lock = threading.Lock()
        self._users = 0
        self._saved: T | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._users == 0:
                self._saved = self._get()
                self._put(self._choose(self._saved))
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0:
                    self._put(self._saved)  # type: ignore[arg-type]
