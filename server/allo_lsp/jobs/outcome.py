"""A finished process, turned into one `JobResult` (the table in issue 4 / ALLO_DATAFLOW.md 5).

The runner's own result file is the primary evidence; the exit status and what the process
printed decide when there is none (it crashed, aborted, hung or was cancelled).
"""

from __future__ import annotations

import signal

from allo_lsp.protocol.messages import (
    CANCELLED,
    CRASH,
    CRASH_AFTER_SUCCESS,
    CRASHED,
    ENVIRONMENT,
    ERROR,
    LIBRARY_BUG,
    PASSED,
    TIMEOUT,
    JobResult,
)
from allo_lsp.protocol import classify


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def outcome(
    returncode: int | None,
    result: JobResult | None,
    log: str,
    *,
    cancelled: bool = False,
    timed_out: bool = False,
    timeout_s: float = 0.0,
    omp_threads: int | None = None,
    pe_count: int | None = None,
) -> JobResult:
    if cancelled:
        return JobResult(CANCELLED, None, "cancelled")
    if timed_out and result is None:
        pes = f"{pe_count} PE{'s' * (pe_count != 1)}" if pe_count else "its PEs"
        return JobResult(
            TIMEOUT,
            "timeout",
            f"no result within {timeout_s:g} s; the process group was killed. A dataflow simulation "
            f"hangs when a stream deadlocks or when OpenMP has fewer threads than PEs running at once "
            f"(OMP_NUM_THREADS={omp_threads}, the design has {pes}).",
        )
    killed = returncode is not None and returncode < 0
    if result is not None:
        if killed and result.status == PASSED:
            result.cause = CRASH_AFTER_SUCCESS
            result.message += (
                f"; then the process died of {signal_name(returncode)} at exit (OpenMP tearing down "
                "after the results were produced): the results stand"
            )
        elif killed:
            result.message += f"; then the process died of {signal_name(returncode)}"
        return result
    bug = classify.library_bug(log)
    if bug is not None:
        return JobResult(ERROR, LIBRARY_BUG, f"Allo/LLVM bug, not your code: {bug}")
    environment = classify.environment_problem(log)
    if environment is not None:
        return JobResult(ERROR, ENVIRONMENT, environment)
    tail = "\n".join(log.strip().splitlines()[-5:])
    if killed:
        return JobResult(CRASHED, CRASH, f"the process died of {signal_name(returncode)} before producing a result" + (f":\n{tail}" if tail else ""))
    return JobResult(ERROR, CRASH, f"the runner exited with status {returncode} without a result" + (f":\n{tail}" if tail else ""))
