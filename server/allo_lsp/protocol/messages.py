"""A job's request and result, as JSON-able dataclasses, and how they travel.

Over pipes the runner inherits, never files another job could find: the server writes one
`Envelope` line (the request, the job's environment and a nonce) to the runner's stdin, and
reads one result line (`{"nonce": ..., "result": JobResult}`) from a pipe whose write end only
the runner holds (`--result-fd`). Nothing depends on parsing the runner's stdout.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

# What a job does (`JobRequest.kind`).
SIMULATE = "simulate"  # build a module-level region for the simulator and call it
RUN = "run"  # call a function (a test) that builds and runs a region
MLIR = "mlir"  # print `df.customize(region).module`
PROBE = "probe"  # learn whether this Allo build reorders the top function's arguments
SYNTHESIZE = "synthesize"  # Vitis HLS csyn

# Outcomes (`JobResult.status`).
PASSED, FAILED, ERROR, CRASHED, TIMEOUT, CANCELLED = "passed", "failed", "error", "crashed", "timeout", "cancelled"
SKIPPED = "skipped"  # a test its own pytest mark skips (runner/pytest_marks.py): not run, not passed

# Causes (`JobResult.cause`).
ASSERTION = "assertion"
USER_ERROR = "user_error"
ALLO_ERROR = "allo_error"
LIBRARY_BUG = "library_bug"
ENVIRONMENT = "environment"
CRASH = "crash"
DEADLOCK = "deadlock"
UNSUPPORTED = "unsupported"  # a construct the reference executor does not run

# Keys of `JobResult.details` from the reference executor (runner/reference/fifos.py): the FIFO
# statistics of its runs, and a deadlock's diagnosis, which the editor shows on the stream's hover
# and turns into a quick fix of the declared depth.
FIFO_STATISTICS = "fifo_statistics"  # [{region, streams: {name: {line, depth, fifos, puts, gets, max_occupancy, waits, blocked_longest}}}]
FIFO_SIZING = "fifo_sizing"  # {kind: depth|imbalance|unknown, message, streams: [{stream, file, line, declared, depth}], counts}


@dataclass
class ArgSpec:
    """One argument of the top function, from the static analysis: how to make a test input."""

    name: str
    dtype: str  # numpy dtype name (int32, float32, uint16, ...)
    shape: list[int]
    direction: str  # in, out, inout, unused


@dataclass
class JobRequest:
    kind: str
    file: str  # absolute path of the user's file
    target: str  # region or function name
    backend: str = "allo"  # allo or reference
    seed: int = 0
    args: list[ArgSpec] = field(default_factory=list)  # for SIMULATE
    project_dir: str = ""  # Allo's `project=`: always private
    source: str | None = None  # the editor's text of `file`, run instead of what is on disk
    options: dict[str, Any] = field(default_factory=dict)  # kind-specific (synthesis configs...)

    @staticmethod
    def from_dict(data: dict) -> JobRequest:
        known = {f.name for f in fields(JobRequest)}
        request = JobRequest(**{k: v for k, v in data.items() if k in known})
        request.args = [ArgSpec(**a) for a in data.get("args", [])]
        return request


@dataclass
class Output:
    """A summary of one output array: enough to compare runs without shipping the data."""

    name: str
    shape: list[int]
    dtype: str
    min: float | None
    max: float | None
    mean: float | None
    checksum: str


@dataclass
class JobResult:
    status: str
    cause: str | None = None
    message: str = ""
    file: str | None = None  # where `line` is (the user's file, normally)
    line: int | None = None  # 1-based
    backend: str = ""  # which backend ran: allo or reference
    target: str = ""
    duration_s: float = 0.0
    omp_num_threads: int | None = None
    outputs: list[Output] = field(default_factory=list)
    reproducer: str | None = None  # a minimal script, for library bugs
    artifact: str | None = None  # a file the job produced (the MLIR text, a report)
    details: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def from_dict(data: dict) -> JobResult:
        known = {f.name for f in fields(JobResult)}
        result = JobResult(**{k: v for k, v in data.items() if k in known})
        result.outputs = [Output(**o) for o in data.get("outputs", [])]
        return result


# Bounds on what a result carries into diagnostics and logs (a design may raise with 50 MB).
MESSAGE_LIMIT = 8_000
DETAIL_LIMIT = 20_000


def bounded(text: str, limit: int) -> str:
    """`text`, or its start and end with a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit:,} characters not shown ...]\n{text[-tail:]}"


def result_line(nonce: str, result: JobResult) -> bytes:
    """What the runner writes last, on its result pipe."""
    return (json.dumps({"nonce": nonce, "result": asdict(result)}, default=repr) + "\n").encode()


def read_result(data: bytes, nonce: str) -> JobResult | None:
    """The result in what came through the result pipe: the one line that carries this job's
    nonce. Only the runner knows the nonce (it came on its stdin, read before the design
    runs), so lines without it (another job writing into the pipe) are ignored; two lines with
    it, or a torn one, are no result."""
    found = []
    for line in data.split(b"\n"):
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("nonce") == nonce:
            found.append(message.get("result"))
    if len(found) != 1 or not isinstance(found[0], dict):
        return None
    try:
        return JobResult.from_dict(found[0])
    except (TypeError, ValueError, AttributeError):
        return None
