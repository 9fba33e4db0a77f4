"""What the server writes to the editor's log, each line with its level.

`alloDataflow.logLevel` (error, warn, info, debug, as ruff-vscode's `ruff.logLevel`) says which
lines the server sends; the client filters its own lines the same way. A line stays short at
info: a job is one line naming its file and region (`design.py::top`, as the client's own job
lines do), the probe one line naming the interpreter; what explains them in full (a job's
output, the whole failure message, the probe's outcome) is a debug line of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from allo_lsp.ide.fifo_run import unread, unread_words
from allo_lsp.ide.outcomes import ran_on
from allo_lsp.protocol.messages import CANCELLED, DETAIL_LIMIT, PASSED, JobResult, bounded
from allo_lsp.protocol.vocabulary import LOG_LEVELS, SECTION

ERROR, WARN, INFO, DEBUG = LOG_LEVELS
_HEADLINE = 300  # characters of a failure message on its job's line: the rest is a debug line
# What the probe's answer means, on its line (`jobs/build_probe.py`).
_BUILDS = {
    "fixed": "keeps the declaration order of top arguments (a fixed build): ADF003 follows it",
    "legacy": "orders top arguments by kernel (an older build): ADF003 follows it",
}


# What a probe that could not tell leaves the user with (one sentence, after why it could not).
_MEANWHILE = (
    "until it tells, ADF003 warns where the two orders differ. Set "
    f"{SECTION}.alloBuild to fixed or legacy to say which; the probe runs again when the settings change"
)


@dataclass(frozen=True)
class LogLine:
    level: str  # one of LOG_LEVELS
    text: str


def shown(level: str, setting: str) -> bool:
    """Whether a line of `level` is sent when `alloDataflow.logLevel` is `setting`."""
    return LOG_LEVELS.index(level) <= LOG_LEVELS.index(setting)


def job_lines(outcome: JobResult, file: str, kind: str) -> list[LogLine]:
    """A finished job: `[top] passed: top simulated (simulate design.py::top, 1.4 s, reference)`
    (a simulation or a test names its backend), a warning when it did not pass (a failure of the
    user's design, not of the server) or left elements unread in a FIFO, then at debug its whole
    message when the line cut it, and its output."""
    where = f"{os.path.basename(file) or file}::{outcome.target}"
    seconds = f", {_duration(outcome.duration_s)}" if outcome.duration_s else ""
    backend = f", {ran_on(outcome, kind)}" if ran_on(outcome, kind) else ""
    message = outcome.message.strip()
    headline = bounded(message.splitlines()[0], _HEADLINE) if message else ""
    left = unread(outcome) if outcome.status == PASSED else []
    level = INFO if outcome.status in (PASSED, CANCELLED) and not left else WARN
    status = f"{outcome.status}, {unread_words(left)}" if left else outcome.status
    lines = [LogLine(level, f"[{outcome.target}] {status}: {headline} ({kind} {where}{seconds}{backend})")]
    if headline != message:
        lines.append(LogLine(DEBUG, f"[{where}] the whole message:\n{bounded(message, DETAIL_LIMIT)}"))
    output = (outcome.details.log or "").strip()
    if output:
        lines.append(LogLine(DEBUG, f"[{where}] {kind} output:\n{bounded(output, DETAIL_LIMIT)}"))
    return lines


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 0.1 else f"{seconds * 1000:.0f} ms"


def probe_lines(python: str, found: str | None, outcome: JobResult) -> list[LogLine]:
    """What the probe learnt of the Allo `python` imports: one line (a warning when it could not
    tell, saying what to set), then its outcome at debug."""
    if found in _BUILDS:
        lines = [LogLine(INFO, f"allo-lsp: the Allo of {python} {_BUILDS[found]}")]
    else:
        lines = [LogLine(WARN, f"allo-lsp: the argument-order probe {_why_unknown(python, outcome)}; {_MEANWHILE}")]
    detail = "\n".join(filter(None, (outcome.message.strip(), (outcome.details.log or "").strip())))
    lines.append(
        LogLine(
            DEBUG,
            f"allo-lsp: the probe's outcome: {outcome.status} {outcome.cause or ''}\n"
            f"{bounded(detail, DETAIL_LIMIT)}".rstrip(),
        )
    )
    return lines


def _why_unknown(python: str, outcome: JobResult) -> str:
    """Why the probe did not tell: it ran but its MLIR did not show the order, or it did not run."""
    if outcome.status == PASSED:
        return f"ran in {python}, but its MLIR does not show in which order top arguments are compiled"
    why = bounded((outcome.message.strip().splitlines() or [outcome.status])[0], _HEADLINE)
    return f"did not run in {python} ({outcome.status}: {why})"
