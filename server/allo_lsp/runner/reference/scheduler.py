"""PEs as cooperatively scheduled generators over bounded FIFOs, with deadlock detection.

`transform.py` turns every kernel into a generator function: a `put`/`get` runs inline
(`put_now`/`get_now`) and suspends (`yield from fifo.wait_put/wait_get`) only when the FIFO is
full/empty. One scheduler resumes PEs in turn; no threads, no locks, a switch is one generator
resume. What a PE's step yields says why it stopped:
- a `Wait` (the FIFO, put or get, the line): parked until that FIFO changes;
- a list of PEs: it called a region; they start, and it resumes when all of them have ended;
- `GIVE_WAY` (the round-robin schedule) or `POLL` (a failed try_get/try_put/empty/full): it
  stays ready, behind the others.
When nothing is ready and some PE is parked, nothing can ever move again: a deadlock, reported
with every parked PE. Every PE polling with no FIFO changing for `POLL_STALL_S` is one too.

Results do not depend on the schedule (Kahn: dataflow over blocking FIFOs is determinate), which
`tests/runner/test_reference_schedules.py` checks under both schedules (`SCHEDULES`).

Only when a run asks (`tracing(n)`, the job's `trace` option) each FIFO keeps the first `n`
values each PE put to it and got from it (at most `TRACE_LIMIT`, for at most `TRACE_KEYS` (FIFO,
PE, op) at all; a block of more than 8 numbers as the text of its first 8): bounded in
memory and in the result's size whatever the run's length. Every put and get then takes the
suspending path, as the deadlock diagnosis' counting does.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import time
from dataclasses import dataclass
from types import SimpleNamespace

from allo_lsp.runner.reference.transform import Unsupported

RUN_UNTIL_BLOCKED, ROUND_ROBIN = "run_until_blocked", "round_robin"
SCHEDULES = (RUN_UNTIL_BLOCKED, ROUND_ROBIN)
_schedule = [RUN_UNTIL_BLOCKED]
POLL_STALL_S = 1.0
TRACE_LIMIT, TRACE_KEYS = 16, 1024
_tracing = [0]

EMPTY = object()  # what `get_now` returns from an empty FIFO (None is a value a stream may carry)
GIVE_WAY = object()
POLL = object()


@contextlib.contextmanager
def schedule(name: str):
    """Run every design started inside under schedule `name` (the tests compare them)."""
    if name not in SCHEDULES:
        raise ValueError(name)
    _schedule.append(name)
    try:
        yield
    finally:
        _schedule.pop()


@contextlib.contextmanager
def tracing(values: int):
    """Every run started inside keeps the first `values` (up to TRACE_LIMIT) each PE put and got per FIFO."""
    _tracing.append(max(0, min(int(values), TRACE_LIMIT)))
    try:
        yield
    finally:
        _tracing.pop()


def _plain(value):
    """A traced value as JSON takes it: a number, a short list, else its bounded text."""
    shape = getattr(value, "shape", None)
    if shape == () and callable(getattr(value, "item", None)):  # a numpy scalar
        return value.item()
    if isinstance(value, (bool, int, float)):
        return value
    if shape is not None and callable(getattr(value, "tolist", None)) and callable(getattr(value, "ravel", None)):
        if value.size <= 8:
            return value.tolist()
        head = ", ".join(map(str, value.ravel()[:8].tolist()))
        return f"[{head}, ... ({value.size} values)]"
    return repr(value)[:80]


@dataclass
class Blocked:
    pe: str
    stream: str
    op: str  # "put" or "get" (or "poll": a try_get/try_put that never succeeds)
    line: int | None
    occupancy: int
    depth: int

    def describe(self) -> str:
        where = f" (line {self.line})" if self.line else ""
        if self.op == "poll":
            return f"{self.pe} polls forever{where}"
        state = "full" if self.op == "put" else "empty"
        return f"{self.pe} blocked on {self.op} {self.stream}{where}: FIFO {state}, {self.occupancy}/{self.depth}"


class Deadlock(Exception):
    def __init__(self, blocked: list[Blocked], polling: bool = False) -> None:
        self.blocked = blocked
        self.sizing: dict | None = None  # set by `sizing.diagnose` (does a larger depth help?)
        lines = "; ".join(b.describe() for b in blocked)
        head = (
            f"no PE can make progress: every running PE polls and no FIFO has changed for {POLL_STALL_S:g} s"
            if polling
            else "no PE can make progress"
        )
        super().__init__(f"deadlock: {head}. {lines}")


class _PE:
    """A PE: also `Scheduler.local` while it runs (the runtime reads `.pe` and `.pid`)."""

    __slots__ = ("pe", "pid", "start", "gen", "join", "wait", "line")

    def __init__(self, name: str, pid: tuple, start, join) -> None:
        self.pe, self.pid, self.start, self.join = name, pid, start, join
        self.gen = None
        self.wait = None  # the Wait it is parked on
        self.line = None  # where it last polled


class _Join:
    __slots__ = ("caller", "remaining")

    def __init__(self, caller, remaining: int) -> None:
        self.caller, self.remaining = caller, remaining


class Wait(tuple):
    """(fifo, op, line, since): what a parked PE waits for, since when (perf_counter)."""

    __slots__ = ()


class Scheduler:
    def __init__(
        self, user_file: str, depths: dict | None = None, counting: bool = False, trace: int | None = None
    ) -> None:
        self.user_file = user_file
        # (fifo name, pe, op) -> [how many, the first values]: only when the run asks (`tracing`)
        self.trace_limit = _tracing[-1] if trace is None else trace
        self.trace: dict[tuple[str, str, str], list] | None = {} if self.trace_limit else None
        self.local = SimpleNamespace(pe=None, pid=())  # the running PE: what the runtime reads
        self.round_robin = _schedule[-1] == ROUND_ROBIN
        self.depths = depths or {}  # (file, line) of a declaration -> depth: the diagnosis's re-runs
        # (fifo name, pe, op) -> count; only the diagnosis counts per PE (it costs the fast path).
        self.counts = collections.Counter() if counting else None
        self.declarations: dict[tuple, tuple[str, int]] = {}  # (file, line) -> (name, declared depth)
        self.users: dict[str, set] = {}  # stream name -> (PE, op) of the kernels whose body uses it
        self.fifos: list[Fifo] = []
        self.ready: collections.deque = collections.deque()

    def fifo(self, name: str, depth: int, store, declared: tuple) -> Fifo:
        """A FIFO of the stream declared at `declared` (file, line)."""
        self.declarations.setdefault(declared, (name.split("[")[0], depth))
        depth = self.depths.get(declared, depth)
        slow = self.round_robin or self.counts is not None or self.trace is not None
        fifo = (SlowFifo if slow else Fifo)(self, name, depth, store, declared)
        self.fifos.append(fifo)
        return fifo

    def start(self, pes: list[tuple[str, tuple, object]], caller: _PE | None = None) -> None:
        join = _Join(caller, len(pes)) if caller is not None else None
        if caller is not None and not pes:
            self.ready.append(caller)  # a region without PEs: nothing to wait for
        for name, pid, start in pes:
            self.ready.append(_PE(name, pid, start, join))

    def run(self, pes: list[tuple[str, tuple, object]]) -> None:
        """Run PEs (name, pid, a callable giving the PE's generator) until all have ended."""
        self.start(pes)
        ready = self.ready
        polls, last_change, signature = 0, None, None
        while ready:
            pe = self.local = ready.popleft()
            gen = pe.gen
            try:
                if gen is None:
                    gen = pe.gen = pe.start()
                why = gen.send(None)
            except StopIteration:
                join = pe.join
                if join is not None:
                    join.remaining -= 1
                    if join.remaining == 0:
                        ready.append(join.caller)
                polls = 0
                continue
            if why is POLL:
                ready.append(pe)
                pe.line = gen.gi_frame.f_lineno if gen.gi_frame else None
                polls += 1
                if polls >= len(ready):  # a whole round in which every ready PE only polled
                    polls, now = 0, self._signature()
                    if now != signature:
                        signature, last_change = now, time.perf_counter()
                    elif time.perf_counter() - last_change > POLL_STALL_S:
                        raise Deadlock(
                            self._blocked() + [Blocked(p.pe, "", "poll", p.line, 0, 0) for p in ready], polling=True
                        )
                continue
            polls = 0
            if why is GIVE_WAY:
                ready.append(pe)
            elif type(why) is Wait:
                pe.wait = why
                why[0].waiters.append(pe)
            else:  # the PEs of a region it called
                self.start(why, pe)
        if self.parked():
            raise Deadlock(self._blocked())

    def parked(self) -> list[_PE]:
        """The PEs waiting on a FIFO (a FIFO that changes makes its waiters ready: `Fifo.put_now`)."""
        return [pe for f in self.fifos for pe in f.waiters]

    def _blocked(self) -> list[Blocked]:
        return sorted(
            (
                Blocked(pe.pe, f.name, op, line, len(f.items), f.depth)
                for pe in self.parked()
                for f, op, line, _ in [pe.wait]
            ),
            key=lambda b: b.pe,
        )

    def _signature(self) -> int:
        return sum(2 * f.puts - len(f.items) for f in self.fifos)  # puts + gets

    def traced(self) -> list[dict]:
        """The trace as the result carries it: per FIFO, PE and op, how many and the first values."""
        return [
            {"fifo": fifo, "pe": pe, "op": op, "count": count, "values": values}
            for (fifo, pe, op), (count, values) in (self.trace or {}).items()
        ]

    def leftover(self) -> dict[tuple, tuple[str, int]]:
        """(file, line) of each declaration whose FIFOs hold elements -> (name, how many): after a
        completed run, what nobody read (Vitis C simulation's "leftover data")."""
        out: dict[tuple, tuple[str, int]] = {}
        for f in self.fifos:
            if f.items:
                name, count = out.get(f.declared, (f.name.split("[")[0], 0))
                out[f.declared] = (name, count + len(f.items))
        return out

    def statistics(self, completed: bool = False) -> dict:
        """Per stream declaration (a stream array sums its FIFOs): what the result and the
        stream's hover show. `completed`: the run ended with every PE done, so what its FIFOs
        still hold was never read (`leftover`; after a deadlock that is no finding)."""
        out: dict[str, dict] = {}
        now = time.perf_counter()
        waiting: dict = {}  # fifo -> the waits still going on (a deadlock's: they never ended)
        for pe in self.parked():
            f, op, _, since = pe.wait
            waiting.setdefault(f, {})[(pe.pe, op)] = now - since
        for f in self.fifos:
            key = f.name.split("[")[0]
            s = out.setdefault(
                key,
                {
                    "line": f.declared[1],
                    "depth": f.depth,
                    "fifos": 0,
                    "puts": 0,
                    "gets": 0,
                    "max_occupancy": 0,
                    "waits": 0,
                    "blocked_longest": None,
                    "leftover": 0,
                },
            )
            s["fifos"] += 1
            if completed:
                s["leftover"] += len(f.items)
            s["puts"] += f.puts
            s["gets"] += f.gets
            s["max_occupancy"] = max(s["max_occupancy"], f.peak)
            records = {key: list(value) for key, value in f.blocked.items()}
            for key, seconds in waiting.get(f, {}).items():
                record = records.setdefault(key, [0, 0.0])
                record[0] += 1
                record[1] += seconds
            for (pe, op), (waits, seconds) in records.items():
                s["waits"] += waits  # times a PE parked on it (full on put, empty on get)
                longest = s["blocked_longest"]
                if longest is None or seconds > longest["seconds"]:
                    s["blocked_longest"] = {
                        "pe": pe,
                        "op": op,
                        "fifo": f.name,
                        "waits": waits,
                        "seconds": round(seconds, 6),
                    }
        return out


class Fifo:
    """A bounded FIFO of `depth` elements; values take the stream's element type on `put`."""

    __slots__ = ("sched", "name", "depth", "store", "declared", "items", "waiters", "ready", "puts", "peak", "blocked")

    def __init__(self, sched: Scheduler, name: str, depth: int, store, declared: tuple) -> None:
        self.sched, self.name, self.depth, self.store, self.declared = sched, name, max(depth, 1), store, declared
        self.items: collections.deque = collections.deque()
        self.waiters: list = []  # PEs parked until this FIFO changes
        self.ready = sched.ready  # where they go when it does (each checks its FIFO again itself)
        self.puts = self.peak = 0
        self.blocked: dict[tuple[str, str], list] = {}  # (pe, op) -> [waits, seconds parked]

    # The inline path of transformed kernels: done at once, or refused without a change. (Every
    # put goes through `Fifo.put_now` and every get through `Fifo.get_now`; gets are counted as
    # puts - occupancy, one increment less per element.)
    def put_now(self, value) -> bool:
        items = self.items
        n = len(items)
        if n >= self.depth:
            return False
        items.append(self.store(value))
        self.puts += 1
        if n >= self.peak:
            self.peak = n + 1
        waiters = self.waiters
        if waiters:
            self.ready.extend(waiters)
            waiters.clear()
        return True

    def get_now(self):
        items = self.items
        if not items:
            return EMPTY
        waiters = self.waiters
        if waiters:
            self.ready.extend(waiters)
            waiters.clear()
        return items.popleft()

    @property
    def gets(self) -> int:
        return self.puts - len(self.items)

    # The suspending path (`yield from`): wait until the FIFO allows it, then do it.
    def wait_put(self, value, line):
        if self.sched.round_robin:
            yield GIVE_WAY
        if len(self.items) >= self.depth:
            start = time.perf_counter()
            while len(self.items) >= self.depth:
                yield Wait((self, "put", line, start))
            self._waited("put", start)
        self._count("put")
        Fifo.put_now(self, value)
        if self.sched.trace is not None:
            self._trace("put", self.items[-1])

    def wait_get(self, line):
        if self.sched.round_robin:
            yield GIVE_WAY
        if not self.items:
            start = time.perf_counter()
            while not self.items:
                yield Wait((self, "get", line, start))
            self._waited("get", start)
        self._count("get")
        value = Fifo.get_now(self)
        if self.sched.trace is not None:
            self._trace("get", value)
        return value

    def _waited(self, op: str, start: float) -> None:
        record = self.blocked.setdefault((self.sched.local.pe, op), [0, 0.0])
        record[0] += 1
        record[1] += time.perf_counter() - start

    def _count(self, op: str) -> None:
        counts = self.sched.counts
        if counts is not None:
            counts[(self.name, self.sched.local.pe, op)] += 1

    def _trace(self, op: str, value) -> None:
        trace, key = self.sched.trace, (self.name, self.sched.local.pe, op)
        entry = trace.get(key)  # type: ignore[union-attr]
        if entry is None:
            if len(trace) >= TRACE_KEYS:  # type: ignore[arg-type]
                return
            entry = trace[key] = [0, []]  # type: ignore[index]
        entry[0] += 1
        if len(entry[1]) < self.sched.trace_limit:
            entry[1].append(_plain(value))

    # Non-blocking operations (Allo's `try_put`, `try_get`, `empty`, `full`). A failed one is
    # followed by `polled` in transformed code: the PE gives way, so the PE it waits for runs.
    def try_put(self, value) -> bool:
        if len(self.items) >= self.depth:
            return False
        self._count("put")
        Fifo.put_now(self, value)
        if self.sched.trace is not None:
            self._trace("put", self.items[-1])
        return True

    def try_get(self):
        if not self.items:
            return self.store(0), False
        self._count("get")
        value = Fifo.get_now(self)
        if self.sched.trace is not None:
            self._trace("get", value)
        return value, True

    def empty(self) -> bool:
        return not self.items

    def full(self) -> bool:
        return len(self.items) >= self.depth

    def polled(self, answer):
        yield POLL
        return answer

    # Outside a transformed kernel body (a helper function given a stream) nothing can suspend.
    def put(self, value):
        raise Unsupported(f"put on stream {self.name} outside a kernel's own body (in a helper function)", None)

    def get(self):
        raise Unsupported(f"get on stream {self.name} outside a kernel's own body (in a helper function)", None)


class SlowFifo(Fifo):
    """Every put/get takes the suspending path: round-robin gives way after every stream
    operation, and the deadlock diagnosis counts each one per PE."""

    __slots__ = ()

    def put_now(self, value) -> bool:
        return False

    def get_now(self):
        return EMPTY


class FifoArray(dict):
    """`fifo[i, j]` of a stream array `Stream[T, depth][P0, P1]`: a dict of the FIFOs made so
    far, keyed as kernels index them (`fifo[1]`, `fifo[i, j]`), so a lookup is dict's own."""

    def __init__(self, sched: Scheduler, name: str, depth: int, dims: tuple, store, declared: tuple) -> None:
        super().__init__()
        self.dims = dims
        self._make = lambda idx: sched.fifo(f"{name}[{', '.join(map(str, idx))}]", depth, store, declared)

    def select(self, index) -> list:
        """`pipe[:]`, `pipe[0, :]` (the transform sends an index with a slice here): the streams
        of the slice, in row-major order (what `df.gather` / `df.scatter` take)."""
        items = index if isinstance(index, tuple) else (index,)
        ranges = [
            range(*i.indices(d)) if isinstance(i, slice) else [int(i)]
            for i, d in zip(items + (slice(None),) * (len(self.dims) - len(items)), self.dims)
        ]
        return [self[idx if len(idx) > 1 else idx[0]] for idx in itertools.product(*ranges)]

    def __missing__(self, index):
        items = index if isinstance(index, tuple) else (index,)
        if any(isinstance(i, slice) for i in items):
            return self.select(index)
        idx = tuple(int(i) for i in items)
        if len(idx) != len(self.dims) or any(not 0 <= i < d for i, d in zip(idx, self.dims)):
            raise IndexError(f"stream index {idx} out of range {self.dims}")
        key = idx if len(idx) > 1 else idx[0]
        if not dict.__contains__(self, key):
            dict.__setitem__(self, key, self._make(idx))
        return dict.__getitem__(self, key)

    def __hash__(self):  # a stream array is one object (the transform's `is_stream`, set members)
        return id(self)

    def __eq__(self, other):
        return self is other
