"""A finished process, turned into one `JobResult` (an outcome: status, cause, message, line).

The runner's result is believed only from a runner that then exited 0 in time: an exit status
other than 0, a signal, a timeout or a cancel overrides whatever it says (a design that wrote a
result and then crashed, or forged one, does not pass). Without a believable result, the exit
status decides, and the last lines printed before a fatal signal may name a known LLVM abort.
"""

from __future__ import annotations

import signal

from allo_lsp.protocol import classify
from allo_lsp.protocol.messages import (
    CANCELLED,
    CRASH,
    CRASHED,
    ERROR,
    LIBRARY_BUG,
    TIMEOUT,
    JobResult,
)

# A process killed by one of these after printing an LLVM abort message died of that abort.
_ABORTS = (signal.SIGABRT, signal.SIGSEGV, signal.SIGILL, signal.SIGBUS, signal.SIGTRAP)
_LAST_LINES = 20


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
    if timed_out:
        pes = f"{pe_count} PE{'s' * (pe_count != 1)}" if pe_count else "its PEs"
        return JobResult(
            TIMEOUT,
            "timeout",
            f"no result within {timeout_s:g} s; the process group was killed. A dataflow simulation "
            f"hangs when a stream deadlocks or when OpenMP has fewer threads than PEs running at once "
            f"(OMP_NUM_THREADS={omp_threads}, the design has {pes}).",
        )
    if result is not None and returncode == 0:
        return result
    unbelieved = (
        " (a result was written, but a runner that does not exit 0 is not believed)" if result is not None else ""
    )
    tail = "\n".join(log.strip().splitlines()[-5:])
    if returncode is not None and returncode < 0:
        if -returncode in _ABORTS:
            bug = classify.library_bug("\n".join(log.strip().splitlines()[-_LAST_LINES:]))
            if bug is not None:
                return JobResult(ERROR, LIBRARY_BUG, f"Allo/LLVM bug, not your code: {bug}")
        return JobResult(
            CRASHED,
            CRASH,
            f"the process died of {signal_name(returncode)} before producing a result{unbelieved}"
            + (f":\n{tail}" if tail else ""),
        )
    if returncode == 0:
        return JobResult(
            ERROR,
            CRASH,
            "the runner exited without a result it could vouch for: the design ended the "
            "process itself (os._exit) or wrote to the runner's result pipe" + (f":\n{tail}" if tail else ""),
        )
    return JobResult(
        ERROR,
        CRASH,
        f"the runner exited with status {returncode} without a result{unbelieved}" + (f":\n{tail}" if tail else ""),
    )
