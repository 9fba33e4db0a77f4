"""A job's request and result, as JSON-able dataclasses (how they travel: `pipes.py`).

`JobResult.details` are typed per job kind (`details.py`, `DETAILS`); `JobResult.to_json` is the
one encoding of a result, on the runner's result pipe and in `allo-lsp run`/`synth --format json`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# The JSON keys of the reference executor's findings, importable from here as before.
from allo_lsp.protocol.details import FIFO_SIZING as FIFO_SIZING
from allo_lsp.protocol.details import FIFO_STATISTICS as FIFO_STATISTICS
from allo_lsp.protocol.details import (
    Details,
    MlirDetails,
    RunDetails,
    SimulateDetails,
    SynthesisDetails,
    decode,
    details_as,
    encode,
)

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

# The class of each kind's `JobResult.details`.
DETAILS: dict[str, type[Details]] = {
    SIMULATE: SimulateDetails,
    RUN: RunDetails,
    SYNTHESIZE: SynthesisDetails,
    MLIR: MlirDetails,
    PROBE: MlirDetails,
}


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
    details: Details = field(default_factory=Details)  # the class of the job's kind: `DETAILS`

    def __post_init__(self) -> None:
        if isinstance(self.details, dict):  # written by hand, without the job's kind
            self.details = decode(self.details)

    def of_kind(self, kind: str) -> JobResult:
        """This result, its details made `kind`'s class in place, what they say kept (a result made
        before the kind was known, a timeout or a crash, says only what every job's may)."""
        self.details = details_as(self.details, DETAILS.get(kind, Details))
        return self

    def to_json(self) -> dict:
        """Every field, the details without their absent ones (`details.encode`)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["outputs"] = [asdict(o) for o in self.outputs]
        data["details"] = encode(self.details)
        return data

    @staticmethod
    def from_dict(data: dict, kind: str | None = None) -> JobResult:
        """A result from its JSON; `kind`: its job's kind, which decides the class of its details."""
        known = {f.name for f in fields(JobResult)} - {"details"}
        result = JobResult(**{k: v for k, v in data.items() if k in known})
        result.outputs = [Output(**o) for o in data.get("outputs", [])]
        result.details = decode(data.get("details") or {}, DETAILS.get(kind) if kind else None)
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
