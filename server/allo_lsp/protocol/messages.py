"""A job's request and result, as JSON-able dataclasses.

The server writes `JobRequest` to a file, starts the runner with its path, and reads `JobResult`
from the file the request names. Nothing depends on parsing the runner's stdout.
"""

from __future__ import annotations

import json
import os
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

# Causes (`JobResult.cause`).
ASSERTION = "assertion"
USER_ERROR = "user_error"
ALLO_ERROR = "allo_error"
LIBRARY_BUG = "library_bug"
ENVIRONMENT = "environment"
CRASH_AFTER_SUCCESS = "crash_after_success"
CRASH = "crash"
DEADLOCK = "deadlock"
UNSUPPORTED = "unsupported"  # a construct the reference executor does not run


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
    result_path: str  # where the runner writes its JobResult
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


def write_json(path: str, obj) -> None:
    """Write atomically: a reader sees the whole file or none (a killed writer leaves no half)."""
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(asdict(obj), f)
    os.replace(tmp, path)


def read_json(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
