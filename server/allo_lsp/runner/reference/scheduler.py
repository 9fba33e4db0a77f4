"""PEs as threads over bounded FIFOs, with deadlock detection.

Why threads: a kernel body is ordinary Python once transformed, and a blocking `get` in the
middle of nested loops needs its own stack; generators would mean rewriting every loop. Threads
cost a context switch per blocking operation, which the benchmark (`bench/reference.py`) measures.

One condition variable guards every FIFO. `active` counts PEs that can make progress; a PE that
blocks, or waits for the PEs of a region it called, is not active. When `active` drops to zero
while some PE is blocked on a stream, nothing can ever move again: that is a deadlock, and every
blocked PE is reported (instance, stream and index, put or get, line, FIFO occupancy).
"""

from __future__ import annotations

import collections
import itertools
import sys
import threading
import time
from dataclasses import dataclass


@dataclass
class Blocked:
    pe: str
    stream: str
    op: str  # "put" or "get"
    line: int | None
    occupancy: int
    depth: int

    def describe(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        state = "full" if self.op == "put" else "empty"
        return f"{self.pe} blocked on {self.op} {self.stream}{where}: FIFO {state}, {self.occupancy}/{self.depth}"


class Deadlock(Exception):
    def __init__(self, blocked: list[Blocked]) -> None:
        self.blocked = blocked
        lines = "; ".join(b.describe() for b in blocked)
        super().__init__(f"deadlock: no PE can make progress. {lines}")


class Aborted(BaseException):
    """Another PE failed: this one stops where it is."""


class Scheduler:
    def __init__(self, user_file: str) -> None:
        self.cond = threading.Condition()
        self.active = 0
        self.blocked: dict[int, tuple[Blocked, object]] = {}  # thread -> (report, ready predicate)
        self.failure: BaseException | None = None
        self.deadlock: Deadlock | None = None
        self.user_file = user_file
        self.local = threading.local()  # .pe (instance name), .pid (tuple)

    def user_line(self) -> int | None:
        """The line of the user's file that is executing in this thread."""
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.user_file:
                return frame.f_lineno
            frame = frame.f_back
        return None

    def wait_until(self, ready, blocked: Blocked) -> None:
        """Block the calling PE until `ready()` holds (called with `cond` held).

        A PE that changes a FIFO reactivates the waiters it unblocked (`wake`) before they run
        again, so `active` never counts a PE that is about to move as stuck."""
        me = threading.get_ident()
        while not ready():
            self._check()
            self.blocked[me] = (blocked, ready)
            self.active -= 1
            if self.active == 0:
                self.deadlock = Deadlock(sorted((b for b, _ in self.blocked.values()), key=lambda b: b.pe))
                self.cond.notify_all()
            while me in self.blocked and self.deadlock is None and self.failure is None:
                self.cond.wait()
            if me in self.blocked:  # woken by a deadlock or a failure, not by progress
                del self.blocked[me]
                self.active += 1
                raise Aborted()  # `run` reports the deadlock or the failure
        self._check()

    def wake(self) -> None:
        """After a FIFO changed: reactivate every PE whose wait is over, then let them run."""
        for ident, (_, ready) in list(self.blocked.items()):
            if ready():
                del self.blocked[ident]
                self.active += 1
        self.cond.notify_all()

    def _check(self) -> None:
        if self.deadlock is not None or self.failure is not None:
            raise Aborted()

    def run(self, pes: list[tuple[str, tuple, object]]) -> None:
        """Run PEs (name, pid, callable) concurrently; the caller is inactive until they end."""
        caller_is_pe = getattr(self.local, "pe", None) is not None
        remaining = [len(pes)]

        def body(name, pid, fn):
            self.local.pe, self.local.pid = name, pid
            try:
                fn()
            except Aborted:
                pass
            except BaseException as exc:  # noqa: BLE001 - the first failure stops the design
                with self.cond:
                    if self.failure is None and not isinstance(exc, Deadlock):
                        self.failure = exc
                    self.cond.notify_all()
            finally:
                with self.cond:
                    remaining[0] -= 1
                    if remaining[0] == 0 and caller_is_pe:
                        self.active += 1  # the calling PE takes over before anyone can judge
                    self.active -= 1
                    if self.active == 0 and self.blocked and self.deadlock is None:
                        self.deadlock = Deadlock(sorted((b for b, _ in self.blocked.values()), key=lambda b: b.pe))
                    self.cond.notify_all()

        threads = [threading.Thread(target=body, args=pe, daemon=True, name=pe[0]) for pe in pes]
        with self.cond:
            self.active += len(pes)
            if caller_is_pe:
                self.active -= 1  # waiting for its sub-region's PEs
            for t in threads:
                t.start()
            while remaining[0]:
                self.cond.wait()
        if self.failure is not None:
            raise self.failure
        if self.deadlock is not None:
            raise self.deadlock


class Fifo:
    """A bounded FIFO of `depth` elements; values take the stream's element type on `put`."""

    def __init__(self, sched: Scheduler, name: str, depth: int, store) -> None:
        self.sched, self.name, self.depth, self.store = sched, name, max(depth, 1), store
        self.items: collections.deque = collections.deque()

    def put(self, value) -> None:
        value = self.store(value)
        s = self.sched
        with s.cond:
            s.wait_until(lambda: len(self.items) < self.depth, self._blocked("put"))
            self.items.append(value)
            s.wake()

    def get(self):
        s = self.sched
        with s.cond:
            s.wait_until(lambda: bool(self.items), self._blocked("get"))
            value = self.items.popleft()
            s.wake()
            return value

    # Non-blocking operations (Allo's `try_put`, `try_get`, `empty`, `full`). A PE that polls
    # spins; after a failed attempt it yields the interpreter so that the PE it waits for runs.
    def try_put(self, value) -> bool:
        value = self.store(value)
        s = self.sched
        with s.cond:
            if len(self.items) >= self.depth:
                done = False
            else:
                self.items.append(value)
                s.wake()
                done = True
        if not done:
            time.sleep(0)
        return done

    def try_get(self):
        s = self.sched
        with s.cond:
            if self.items:
                value = self.items.popleft()
                s.wake()
                return value, True
        time.sleep(0)
        return self.store(0), False

    def empty(self) -> bool:
        with self.sched.cond:
            return not self.items

    def full(self) -> bool:
        with self.sched.cond:
            return len(self.items) >= self.depth

    def _blocked(self, op: str) -> Blocked:
        return Blocked(getattr(self.sched.local, "pe", "?"), self.name, op, self.sched.user_line(),
                       len(self.items), self.depth)


class FifoArray:
    """`fifo[i, j]` of a stream array `Stream[T, depth][P0, P1]`."""

    def __init__(self, sched: Scheduler, name: str, depth: int, dims: tuple, store) -> None:
        self.dims = dims
        self._lock = sched.cond  # PEs index the array concurrently: one FIFO per index
        self._fifos: dict[tuple, Fifo] = {}
        self._make = lambda idx: Fifo(sched, f"{name}[{', '.join(map(str, idx))}]", depth, store)

    def __getitem__(self, index):
        items = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, slice) for i in items):
            # `pipe[:]`, `pipe[0, :]`: the streams of the slice, in row-major order (what
            # `df.gather` / `df.scatter` take).
            ranges = [range(*i.indices(d)) if isinstance(i, slice) else [int(i)]
                      for i, d in zip(items + (slice(None),) * (len(self.dims) - len(items)), self.dims)]
            return [self[idx] for idx in itertools.product(*ranges)]
        idx = tuple(int(i) for i in items)
        if len(idx) != len(self.dims) or any(not 0 <= i < d for i, d in zip(idx, self.dims)):
            raise IndexError(f"stream index {idx} out of range {self.dims}")
        with self._lock:
            if idx not in self._fifos:
                self._fifos[idx] = self._make(idx)
            return self._fifos[idx]
