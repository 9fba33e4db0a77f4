"""A finished job (an outcome) in editor terms: its lens title, its summary and the problems it
points at (its lines in the log: `log_lines.py`).

A failure is shown at its line (on the target's name when it has none: a crash, a compiler bug),
a deadlock at every blocked put/get and at each declaration its diagnosis deepens (or, when the
deeper re-run left elements unread, at the declarations that hold them), elements a completed
run left unread at their stream's declaration, a timing violation and a disagreement between
Allo and the reference executor on the target. The lens of a simulation or a test names the
backend that ran it (`✓ passed 0.2 s · reference`): the numpy executor is not Allo's simulator.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from allo_lsp.analysis.model import FileModel, Position, Range
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.ide.fifo_run import CODE as FIFO_DEPTH
from allo_lsp.ide.fifo_run import LEFTOVER, leftover_diagnostics, sizing_diagnostics, unread, unread_words
from allo_lsp.ide.synthesis import lens_title, synthesis_files, timing_violation
from allo_lsp.protocol.details import SimulateDetails, SynthesisDetails, details_as
from allo_lsp.protocol.messages import (
    CANCELLED,
    DEADLOCK,
    ENVIRONMENT,
    MESSAGE_LIMIT,
    PASSED,
    RUN,
    SIMULATE,
    SYNTHESIZE,
    TIMEOUT,
    JobResult,
    bounded,
)

RUN_SOURCE = "allo-lsp run"
# Outputs are compared as float64: anything above rounding noise means the two disagree.
DIFFERENTIAL_TOLERANCE = 1e-4


def lens_title_after(label: str, kind: str, outcome: JobResult) -> str:
    """The lens of a job once it ended: a synthesis that passed shows its figures, any other job
    `label: outcome` (`▶ Simulate: ✓ passed 1.4 s · reference`: a simulation or a test names its
    backend)."""
    report = details_as(outcome.details, SynthesisDetails).report if outcome.status == PASSED else None
    if kind == SYNTHESIZE and report:
        return lens_title(report)
    backend = ran_on(outcome, kind)
    return f"{label}: {outcome_title(outcome)}" + (f" · {backend}" if backend else "")


def ran_on(outcome: JobResult, kind: str) -> str | None:
    """The backend that ran a simulation or a test (None: another kind, whose backend is Allo's
    alone, or a job that never reached one: cancelled, refused before it started, `auto` still)."""
    if kind in (SIMULATE, RUN) and outcome.status != CANCELLED and outcome.backend in _BACKEND_WORDS:
        return outcome.backend
    return None


def outcome_title(outcome: JobResult) -> str:
    """`✓ passed 1.4 s`, `⚠ passed, 16 elements left unread in tap · 1.4 s`, `✗ assertion line 27`,
    `✗ allo_error line 12`, `⏱ timeout`."""
    seconds = f" {outcome.duration_s:.1f} s" if outcome.duration_s else ""
    if outcome.status == PASSED:
        left = unread(outcome)
        if left:
            return f"⚠ passed, {unread_words(left, quote='')}" + (f" ·{seconds}" if seconds else "")
        return f"✓ passed{seconds}"
    if outcome.status == CANCELLED:
        return "cancelled"
    if outcome.status == TIMEOUT:
        return f"⏱ timeout{seconds}"
    where = f" line {outcome.line}" if outcome.line else ""
    return f"✗ {outcome.cause or outcome.status}{where}"


# Who ran a simulation or a test, in the words a hover uses.
_BACKEND_WORDS = {"reference": "the reference executor (numpy), not Allo's simulator", "allo": "Allo's simulator"}


def last_simulation_markdown(outcomes: Iterable[JobResult], region: str) -> str:
    """The hover's line on the newest simulation of `region` and the backend that ran it."""
    last = None
    for outcome in outcomes:
        if outcome.target == region and isinstance(outcome.details, SimulateDetails) and ran_on(outcome, SIMULATE):
            last = outcome
    if last is None:
        return ""
    ran = _BACKEND_WORDS.get(last.backend, last.backend)
    return f"\n\n---\nLast simulation: {outcome_title(last)} on {ran}"


def synthesis_links_markdown(outcomes: Iterable[JobResult], region: str) -> str:
    """The hover's links to the newest synthesis' files of `region` (file: URIs the editor opens)."""
    files = [synthesis_files(o) for o in outcomes if o.target == region and isinstance(o.details, SynthesisDetails)]
    if not files or not files[-1]:
        return ""
    links = " · ".join(f"[{label}]({PurePosixPath(path).as_uri()})" for label, path in files[-1])
    return f"\n\n---\nLast synthesis: {links}"


def cluster_title(state) -> str:
    """A cluster job's lens while it lasts (`state`: its newest `slurm.JobState`):
    `⚙ queued #4711 (Resources)`, `⚙ running 12 min`."""
    if state.state == "PENDING":
        return f"⚙ queued #{state.job_id}" + (f" ({state.reason})" if state.reason else "")
    if state.state == "RUNNING":
        minutes = state.run_s // 60
        return f"⚙ running {minutes} min" if minutes else "⚙ running <1 min"
    return f"⚙ {state.state.lower()} #{state.job_id}"  # ended: collected at once


def summary(outcome: JobResult) -> str:
    return f"[{outcome.target}] {outcome.status}: {outcome.message}"


# What fixes a job's environment: the client maps each action to its command.
ENVIRONMENT_ACTIONS = ("Open Settings", "Select Interpreter")


def failure_message(outcome: JobResult) -> tuple[str, tuple[str, ...]] | None:
    """(text, actions) of the message a failed job asks with, or None: only a failure of the
    job's environment, with the actions that fix it. Any other failure is a diagnostic at its
    line or on the target, gone with the fix (a message would stay: an editor cannot close it)."""
    if outcome.cause == ENVIRONMENT and outcome.status not in (PASSED, CANCELLED):
        return f"allo-lsp: {summary(outcome)}", ENVIRONMENT_ACTIONS
    return None


def target_line(model: FileModel, name: str) -> int | None:
    """0-based line of the module-level region or function a job ran."""
    item = model.module_region(name) or model.function(name)
    return item.range.start.line if item is not None else None


def findings(outcome: JobResult, model: FileModel, name: str) -> list[tuple[int, str, str, Severity]]:
    """(0-based line, message, code, severity) of everything the outcome points at."""
    line_of_target = target_line(model, name)
    found = _failures(outcome, line_of_target)
    for line, message, error in leftover_diagnostics(outcome, model):
        found.append((line, message, LEFTOVER, Severity.ERROR if error else Severity.WARNING))
    if line_of_target is None:
        return found
    report = details_as(outcome.details, SynthesisDetails).report
    violation = timing_violation(report) if report else None
    if violation:
        found.append((line_of_target, violation, "timing", Severity.WARNING))
    differential = details_as(outcome.details, SimulateDetails).differential
    differences = differential.max_abs_diff if differential is not None else {}
    disagree = {n: diff for n, diff in differences.items() if diff > DIFFERENTIAL_TOLERANCE}
    if disagree:
        listed = ", ".join(f"{n} (largest difference {d:g})" for n, d in disagree.items())
        message = (
            f"Allo's simulator and the reference executor disagree on {listed} for the same inputs: "
            "one of them is wrong"
        )
        found.append((line_of_target, message, "differential", Severity.WARNING))
    return found


def _failures(outcome: JobResult, line_of_target: int | None) -> list[tuple[int, str, str, Severity]]:
    found = []
    if outcome.cause == DEADLOCK:
        for b in details_as(outcome.details, SimulateDetails).blocked:
            if b.line:
                state = "full" if b.op == "put" else "empty"
                message = f"deadlock: {b.pe} waits forever to {b.op} {b.stream} (FIFO {state}, {b.occupancy}/{b.depth})"
                found.append((b.line - 1, message, DEADLOCK, Severity.ERROR))
        for line, message in sizing_diagnostics(outcome):  # a declaration too shallow: its quick fix
            found.append((line, message, FIFO_DEPTH, Severity.ERROR))
    elif outcome.status not in (PASSED, CANCELLED):
        line = outcome.line - 1 if outcome.line else line_of_target
        if line is not None:
            found.append((line, outcome.message, outcome.cause or outcome.status, Severity.ERROR))
    return found


def placed(found: list[tuple[int, str, str, Severity]], lines: list[str]) -> list[Problem]:
    """The findings on the text the job ran, each over its line's code (indentation aside); a line
    of another file (a helper module's traceback line, say) is left out."""
    out = []
    for line, message, code, severity in found:
        if not 0 <= line < len(lines):
            continue
        text = lines[line].rstrip("\r\n")
        start = len(text) - len(text.lstrip())
        out.append(
            Problem(
                code, severity, Range(Position(line, start), Position(line, len(text))), bounded(message, MESSAGE_LIMIT)
            )
        )
    return out
