"""Jobs from the editor: code lenses, commands, progress, outcomes shown in place.

A job runs only when the user asks (a lens, a command, a code action) and only in a trusted
workspace. It runs the editor's text of the file (saved or not) in an isolated process; its
outcome becomes the lens title and, when it points at a line, a diagnostic (source
`allo-lsp run`) until the next run or edit.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import shutil
from dataclasses import asdict, dataclass, field
from urllib.parse import urlsplit

from lsprotocol import types as lsp

from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.fifo_run import CODE as FIFO_DEPTH, sizing_diagnostics
from allo_lsp.ide.lenses import CANCEL, COMMANDS, REPORT, code_lenses
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.launch import Target
from allo_lsp.jobs.manager import JobManager
from allo_lsp.jobs.service import run_target
from allo_lsp.jobs.synthesis import SynthConfig, synthesize
from allo_lsp.reports import ReportError, delta, parse_report
from allo_lsp.ide.document import range_forward
from allo_lsp.ide.synthesis import timing_violation
from allo_lsp.lsp.encoded import Encoded
from allo_lsp.lsp.mlir_view import after_mlir_job, probe_build
from allo_lsp.lsp.server import AlloLanguageServer, _view, server
from allo_lsp.protocol.messages import (
    DEADLOCK, DETAIL_LIMIT, ENVIRONMENT, ERROR, MESSAGE_LIMIT, MLIR, PASSED, RUN, SIMULATE, SYNTHESIZE, JobResult, bounded,
)

log = logging.getLogger(__name__)
RUN_SOURCE = "allo-lsp run"
# Outputs are compared as float64: anything above rounding noise means the two disagree.
DIFFERENTIAL_TOLERANCE = 1e-4
RUNNING = "running"  # the answer to a job command whose target is running already
SETTINGS_WAIT_S = 10.0  # a job clicked before the client's settings arrived waits for them this long
_tokens = itertools.count(1)


@dataclass
class JobsState:
    # After the user's first job, a runner is pre-started so the next one begins at once.
    manager: JobManager = field(default_factory=lambda: JobManager(prestart=True, owns_kept_dirs=True))
    outcomes: dict[str, dict[tuple[str, str], JobResult]] = field(default_factory=dict)
    running: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    progress: dict[str, str] = field(default_factory=dict)  # progress token -> job key
    lens_changes: dict[str, int] = field(default_factory=dict)  # uri -> jobs started or ended


def state(ls: AlloLanguageServer) -> JobsState:
    if not hasattr(ls, "jobs_state"):
        ls.jobs_state = JobsState()
    return ls.jobs_state


def job_config(ls: AlloLanguageServer) -> JobConfig:
    s = ls.settings
    return JobConfig(python=s.python, llvm_build_dir=s.llvm_build_dir, omp_threads=s.omp_threads, timeout_s=s.timeout,
                     extra_env={"ALLO_LSP_EMULATE": s.emulate} if s.emulate else {})


# Documents that are not files on disk: what to say instead of running them.
_NOT_FILES = {
    "untitled": "save the file first: a job runs a file on disk (with your unsaved edits)",
    "vscode-notebook-cell": "notebook cells are not supported: put the design in a .py file",
    "vscode-notebook": "notebooks are not supported: put the design in a .py file",
}


def _not_runnable(uri: str) -> str | None:
    """Why a document cannot run, or None: only `file:` URIs run (an `http:` document is
    someone else's text)."""
    scheme = urlsplit(uri).scheme
    if scheme == "file":
        return None
    return _NOT_FILES.get(scheme, f"only files on disk run: {bounded(uri, 200)} is not one")


async def start_job(ls: AlloLanguageServer, uri: str, name: str, kind: str) -> dict:
    """Run one job to its end and show the outcome; returns it (as JSON) to the client."""
    jobs = state(ls)
    try:  # whether the workspace is trusted comes with the settings
        await asyncio.wait_for(ls.settings_received.wait(), SETTINGS_WAIT_S)
    except asyncio.TimeoutError:
        return _refuse(ls, "the editor has not sent its settings (workspace trust among them): nothing is run yet")
    if not ls.settings.trusted:
        return _refuse(ls, "this workspace is not trusted: allo-lsp runs nothing in it (analysis still works)")
    why = _not_runnable(uri)
    if why is not None:
        return _refuse(ls, why)
    doc = ls.document(uri)
    if not doc.path:
        return _refuse(ls, f"{bounded(uri, 200)} is not a file on disk")
    result = ls.analyses.get(uri)
    if result is None:
        return _refuse(ls, "the file has not been analysed yet")
    key = (name, kind)
    if key in jobs.running.get(uri, set()):
        # One job per target: a second click (or the palette) while it runs starts nothing;
        # the running lens cancels it.
        return {"status": RUNNING, "message": f"'{name}' ({kind}) is already running: its lens cancels it",
                "target": name, "kind": kind}
    analysis = result.good()[0] or result.current
    target = Target(doc.path, name, kind, uri)
    jobs.running.setdefault(uri, set()).add(key)
    ls.job_diagnostics.pop(uri, None)  # cleared by the next run
    _refresh(ls, uri)
    _cancel_with_request(ls, target.key)
    if ls.settings.allo_build == "auto" and ls.probed_build is None:
        asyncio.ensure_future(probe_build(ls, jobs.manager, job_config(ls)))
    ran_on = (doc, doc.version)  # the text the job runs: its diagnostics are for that text only
    token = None
    try:
        token = await _begin_progress(ls, f"{name}: {kind}", target.key)

        def progress(phase: str) -> None:
            if token is not None:
                ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=phase))

        if kind == SYNTHESIZE:
            outcome = await synthesize(jobs.manager, target, analysis.model, job_config(ls), synth_config(ls), progress)
        else:
            outcome = await run_target(
                jobs.manager, target, analysis.model, job_config(ls), ls.settings.backend, 0, progress,
                source=doc.source,
            )
    except Exception as exc:  # the server keeps answering whatever a job does
        log.exception("job %s failed", target.key)
        outcome = JobResult(ERROR, "crash", f"allo-lsp could not run the job: {exc!r}", target=name)
    finally:
        if token is not None:
            ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message="done"))
            jobs.progress.pop(str(token), None)
        jobs.running.get(uri, set()).discard(key)
    outcome.message = bounded(outcome.message, MESSAGE_LIMIT)
    jobs.outcomes.setdefault(uri, {})[key] = outcome
    if kind == SYNTHESIZE:
        _keep_reports(ls, uri, name, outcome)
    if outcome.reproducer:
        ls.reproducers[uri] = (name, outcome.reproducer)
    current = ls.document(uri) if uri in ls.open_uris() else None
    still = current is ran_on[0] and current.version == ran_on[1]
    _report(ls, uri, outcome, _target_line(analysis, name) if still else None, diagnostics=still)
    _refresh(ls, uri)
    data = asdict(outcome)
    data["kind"] = kind
    data.pop("details", None)
    if kind == MLIR:
        data.update(await after_mlir_job(ls, uri, name, outcome))
    return data


def _cancel_with_request(ls: AlloLanguageServer, key: str) -> None:
    """`$/cancelRequest` of this `executeCommand` cancels its job: pygls answers the request
    "cancelled" but lets the command's coroutine run on (TOOLCHAIN.md)."""
    request = ls.protocol._request_futures.get(ls.protocol.msg_id)
    if request is None:
        return
    manager = state(ls).manager
    loop = asyncio.get_running_loop()

    def cancelled(future) -> None:
        if future.cancelled():
            loop.call_soon_threadsafe(manager.cancel, key)

    request.add_done_callback(cancelled)


def synth_config(ls: AlloLanguageServer) -> SynthConfig:
    s = ls.settings
    return SynthConfig(command=s.vitis_command, part=s.vitis_part, clock_ns=s.vitis_clock_ns,
                       launcher_prefix=s.vitis_launcher_prefix, timeout_s=s.vitis_timeout)


def _keep_reports(ls: AlloLanguageServer, uri: str, name: str, outcome: JobResult) -> None:
    """The newest report of a region and the one before it (for the change view); older
    synthesis projects are removed, and so is the project of a synthesis without a report:
    nothing in the editor leads to it (`allo-lsp synth` keeps it and prints where it is)."""
    if outcome.details.get("report") is None:
        job_dir = outcome.details.get("job_dir") or os.path.dirname(outcome.details.get("project") or "")
        if os.path.basename(job_dir).startswith("allo-lsp-job-"):
            shutil.rmtree(job_dir, ignore_errors=True)
        return
    history = ls.synthesis.setdefault((uri, name), [])
    history.append(outcome)
    while len(history) > 2:
        shutil.rmtree(os.path.dirname(history.pop(0).details.get("project", "") or "/nonexistent"), ignore_errors=True)


def _refuse(ls: AlloLanguageServer, message: str) -> dict:
    ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Warning, f"allo-lsp: {message}"))
    return asdict(JobResult(ERROR, ENVIRONMENT, message))


async def _begin_progress(ls: AlloLanguageServer, title: str, key: str):
    caps = ls.client_capabilities.window
    if not (caps and caps.work_done_progress):
        return None
    token = f"allo-lsp-job-{next(_tokens)}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # a client that refuses progress still gets the job
        return None
    state(ls).progress[token] = key
    ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(title=f"Allo {title}", cancellable=True))
    return token


def _target_line(analysis, name: str) -> int | None:
    """0-based line of the region or function a job ran."""
    model = analysis.model
    for item in [r for r in model.regions if not r.scope_path] + model.functions:
        if item.name == name:
            return item.range.start.line
    return None


def _report(ls: AlloLanguageServer, uri: str, outcome: JobResult, target_line: int | None, diagnostics: bool) -> None:
    """The outcome in the log, and as diagnostics: a failure at its line (on the target's name
    when it has none: a crash, a compiler bug), a deadlock at every blocked put/get, and a
    disagreement between Allo and the reference executor on the target. `diagnostics`: the
    document is still open at the text the job ran (lines of another text would be wrong)."""
    log_text = bounded(outcome.details.get("log", ""), DETAIL_LIMIT)
    summary = f"[{outcome.target}] {outcome.status}: {outcome.message}"
    ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Info, summary + (f"\n{log_text}" if log_text else "")))
    found: list[tuple[int, str, str, lsp.DiagnosticSeverity]] = []  # (line, message, code, severity)
    if outcome.cause == DEADLOCK:
        for b in outcome.details.get("blocked", []):
            if b.get("line"):
                state = "full" if b["op"] == "put" else "empty"
                message = f"deadlock: {b['pe']} waits forever to {b['op']} {b['stream']} (FIFO {state}, {b['occupancy']}/{b['depth']})"
                found.append((b["line"] - 1, message, DEADLOCK, lsp.DiagnosticSeverity.Error))
        for line, message in sizing_diagnostics(outcome):  # a declaration too shallow: its quick fix
            found.append((line, message, FIFO_DEPTH, lsp.DiagnosticSeverity.Error))
    elif outcome.status not in (PASSED, "cancelled"):
        if not outcome.line:
            ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"allo-lsp: {summary}"))
        line = outcome.line - 1 if outcome.line else target_line
        if line is not None:
            found.append((line, outcome.message, outcome.cause or outcome.status, lsp.DiagnosticSeverity.Error))
    violation = timing_violation(outcome.details["report"]) if outcome.details.get("report") else None
    if violation and target_line is not None:
        found.append((target_line, violation, "timing", lsp.DiagnosticSeverity.Warning))
    differences = outcome.details.get("differential", {}).get("max_abs_diff", {})
    disagree = {name: diff for name, diff in differences.items() if diff > DIFFERENTIAL_TOLERANCE}
    if disagree and target_line is not None:
        listed = ", ".join(f"{n} (largest difference {d:g})" for n, d in disagree.items())
        message = f"Allo's simulator and the reference executor disagree on {listed} for the same inputs: one of them is wrong"
        found.append((target_line, message, "differential", lsp.DiagnosticSeverity.Warning))
    if not found or not diagnostics:
        return
    document = ls.document(uri)
    convert = ls.converter(uri, document.source)
    shown = []
    for line, message, code, severity in found:
        if not 0 <= line < len(document.lines):
            continue  # a line of another file (a helper module's traceback line, say)
        text = document.lines[line].rstrip("\r\n")
        start = len(text) - len(text.lstrip())
        rng = convert.range(Range(Position(line, start), Position(line, len(text))))
        shown.append(lsp.Diagnostic(range=rng, message=bounded(message, MESSAGE_LIMIT), severity=severity,
                                    source=RUN_SOURCE, code=code))
    ls.job_diagnostics[uri] = shown
    current = ls.analyses.get(uri)
    if current is not None:
        ls.publish(uri, current)


def _refresh(ls: AlloLanguageServer, uri: str) -> None:
    state(ls).lens_changes[uri] = state(ls).lens_changes.get(uri, 0) + 1  # lens titles change
    caps = ls.client_capabilities.workspace
    if caps and caps.code_lens and caps.code_lens.refresh_support:
        asyncio.ensure_future(_refresh_async(ls))


async def _refresh_async(ls: AlloLanguageServer) -> None:
    try:
        await ls.workspace_code_lens_refresh_async(None)
    except Exception as exc:
        log.info("codeLens/refresh failed: %r", exc)


def _args(args) -> tuple[str, str]:
    if len(args) < 2 or not all(isinstance(a, str) for a in args[:2]):
        raise ValueError("expected the arguments [uri, name]")
    return args[0], args[1]


@server.command(COMMANDS[SIMULATE])
async def simulate(ls: AlloLanguageServer, *args) -> dict:
    return await start_job(ls, *_args(args), SIMULATE)


@server.command(COMMANDS[RUN])
async def run_test(ls: AlloLanguageServer, *args) -> dict:
    return await start_job(ls, *_args(args), RUN)


@server.command(COMMANDS[MLIR])
async def show_mlir(ls: AlloLanguageServer, *args) -> dict:
    return await start_job(ls, *_args(args), MLIR)


@server.command(COMMANDS[SYNTHESIZE])
async def synthesize_region(ls: AlloLanguageServer, *args) -> dict:
    return await start_job(ls, *_args(args), SYNTHESIZE)


@server.command(COMMANDS[REPORT])
def show_report(ls: AlloLanguageServer, *args) -> dict:
    """The last synthesis report of a region as markdown, with the change since the run before."""
    uri, name = _args(args)
    history = ls.synthesis.get((uri, name), [])
    if not history:
        return {"markdown": f"No synthesis report for '{name}' yet: run ⚙ Synthesize first."}
    markdown = history[-1].details.get("report_markdown", "")
    if len(history) == 2:
        try:
            changes = delta(parse_report(history[0].artifact), parse_report(history[1].artifact))
        except (ReportError, TypeError):
            changes = {}
        changed = {k: v for k, v in changes.items() if v["old"] != v["new"]}
        rows = ["", "### Change since the previous run", ""]
        if changed:
            rows += ["| figure | before | now | change |", "|---|--:|--:|--:|"]
            rows += [f"| {k} | {v['old']} | {v['new']} | {v['change'] if v['change'] is not None else '—'} |"
                     for k, v in changed.items()]
        else:
            rows.append("No figure changed.")
        markdown += "\n".join(rows) + "\n"
    return {"markdown": markdown, "report": history[-1].details["report"]}


@server.command("alloDataflow.cancelJob")
def cancel_job(ls: AlloLanguageServer, *args) -> bool:
    """Cancel one job ([uri, name, kind]) or, with no arguments, every running job. Answers at
    once: the job's processes are being killed, and its own command answers "cancelled"."""
    manager = state(ls).manager
    if len(args) >= 3 and all(isinstance(a, str) for a in args[:3]):
        return manager.cancel(Target("", args[1], args[2], args[0]).key)
    keys = manager.running()
    for key in keys:
        manager.cancel(key)
    return bool(keys)


_SHUTDOWN_WAIT_S = 2.0  # for the jobs' directories to be removed; their processes die anyway


@server.feature(lsp.SHUTDOWN)
async def on_shutdown(ls: AlloLanguageServer, params) -> None:
    await state(ls).manager.close(_SHUTDOWN_WAIT_S)


@server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def on_progress_cancel(ls: AlloLanguageServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    key = state(ls).progress.get(str(params.token))
    if key is not None:
        state(ls).manager.cancel(key)


@server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
def on_code_lens(ls: AlloLanguageServer, params: lsp.CodeLensParams) -> Encoded | list:
    """Encoded once per analysis, document version and change of the jobs' state: editors ask
    again on every scroll and focus, and a large file has a thousand lenses."""
    uri = params.text_document.uri
    result = ls.analyses.get(uri)
    if result is None:
        return []
    jobs = state(ls)
    key = (ls.document(uri).version, jobs.lens_changes.get(uri, 0))
    if result.lenses is not None and result.lenses[0] == key:
        return result.lenses[1]
    analysis, convert, shift = _view(ls, uri)
    out = []
    for lens in code_lenses(analysis, jobs.outcomes.get(uri, {}), jobs.running.get(uri, set())):
        moved = range_forward(shift, lens.range)
        if moved is not None:
            arguments = [uri, lens.name, lens.kind] if lens.command == CANCEL else [uri, lens.name]
            command = {"title": lens.title, "command": lens.command, "arguments": arguments}
            out.append({"range": convert.range_json(moved), "command": command})
    encoded = Encoded(out)
    result.lenses = (key, encoded)
    return encoded
