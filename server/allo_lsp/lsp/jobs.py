"""Jobs from the editor: code lenses, commands, progress, outcomes shown in place.

A job runs only when the user asks (a lens, a command, a code action) and only in a trusted
workspace. It runs the editor's text of the file (saved or not) in an isolated process; its
outcome becomes the lens title and, when it points at a line, a diagnostic (source
`allo-lsp run`, `ide/outcomes.py`) until the next run or edit.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import asdict, replace
from urllib.parse import urlsplit

from lsprotocol import types as lsp

from allo_lsp.ide import outcomes
from allo_lsp.ide.document import range_forward
from allo_lsp.ide.lenses import CANCEL, COMMANDS, REPORT, code_lenses
from allo_lsp.ide.synthesis import report_markdown
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.launch import Target
from allo_lsp.jobs.service import run_target
from allo_lsp.jobs.synthesis import SynthConfig, keep_reports, synthesize
from allo_lsp.lsp import convert
from allo_lsp.lsp.encoded import Encoded
from allo_lsp.lsp.features import view
from allo_lsp.lsp.mlir_view import after_mlir_job, probe_build
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import (
    CRASH,
    ENVIRONMENT,
    ERROR,
    MESSAGE_LIMIT,
    MLIR,
    RUN,
    SIMULATE,
    SYNTHESIZE,
    JobResult,
    bounded,
)

log = logging.getLogger(__name__)
RUNNING = "running"  # the answer to a job command whose target is running already
SETTINGS_WAIT_S = 10.0  # a job clicked before the client's settings arrived waits for them this long
_SHUTDOWN_WAIT_S = 2.0  # for the jobs' directories to be removed; their processes die anyway
_tokens = itertools.count(1)


def job_config(ls: AlloLanguageServer) -> JobConfig:
    s = ls.settings
    return JobConfig(python=s.python, llvm_build_dir=s.llvm_build_dir, omp_threads=s.omp_threads, timeout_s=s.timeout,
                     extra_env={"ALLO_LSP_EMULATE": s.emulate} if s.emulate else {})


def synth_config(ls: AlloLanguageServer) -> SynthConfig:
    s = ls.settings
    return SynthConfig(command=s.vitis_command, part=s.vitis_part, clock_ns=s.vitis_clock_ns,
                       launcher_prefix=s.vitis_launcher_prefix, timeout_s=s.vitis_timeout)


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


async def _refusal(ls: AlloLanguageServer, uri: str) -> str | None:
    """Why the job cannot start, or None."""
    try:  # whether the workspace is trusted comes with the settings
        await asyncio.wait_for(ls.settings_received.wait(), SETTINGS_WAIT_S)
    except asyncio.TimeoutError:
        return "the editor has not sent its settings (workspace trust among them): nothing is run yet"
    if not ls.settings.trusted:
        return "this workspace is not trusted: allo-lsp runs nothing in it (analysis still works)"
    why = _not_runnable(uri)
    if why is not None:
        return why
    if not ls.document(uri).path:
        return f"{bounded(uri, 200)} is not a file on disk"
    if ls.analyses.get(uri) is None:
        return "the file has not been analysed yet"
    return None


async def start_job(ls: AlloLanguageServer, uri: str, name: str, kind: str) -> dict:
    """Run one job to its end and show the outcome; returns it (as JSON) to the client."""
    why = await _refusal(ls, uri)
    if why is not None:
        ls.window_show_message(convert.show_message(f"allo-lsp: {why}"))
        return asdict(JobResult(ERROR, ENVIRONMENT, why))
    jobs, key = ls.jobs, (name, kind)
    if key in jobs.running.get(uri, set()):
        # One job per target: a second click (or the palette) while it runs starts nothing;
        # the running lens cancels it.
        return {"status": RUNNING, "message": f"'{name}' ({kind}) is already running: its lens cancels it",
                "target": name, "kind": kind}
    result, doc = ls.analyses[uri], ls.document(uri)
    analysis = result.good()[0] or result.current
    jobs.running.setdefault(uri, set()).add(key)
    ls.job_diagnostics.pop(uri, None)  # cleared by the next run
    _refresh(ls, uri)
    ran_on = (doc, doc.version)  # the text the job runs: its diagnostics are for that text only
    outcome = await _run(ls, Target(doc.path, name, kind, uri), analysis.model, doc.source)
    outcome.message = bounded(outcome.message, MESSAGE_LIMIT)
    jobs.outcomes.setdefault(uri, {})[key] = outcome
    if kind == SYNTHESIZE:
        keep_reports(jobs.synthesis.setdefault((uri, name), []), outcome)
    if outcome.reproducer:
        jobs.reproducers[uri] = (name, outcome.reproducer)
    current = ls.document(uri) if uri in ls.open_uris() else None
    _show(ls, uri, name, outcome, analysis.model, still=current is ran_on[0] and current.version == ran_on[1])
    _refresh(ls, uri)
    data = asdict(outcome)
    data["kind"] = kind
    data.pop("details", None)
    if kind == MLIR:
        data.update(await after_mlir_job(ls, uri, name, outcome))
    return data


async def _run(ls: AlloLanguageServer, target: Target, model, source: str) -> JobResult:
    """The job's outcome, whatever happens; its progress shown while it runs."""
    jobs = ls.jobs
    _cancel_with_request(ls, target.key)
    if ls.settings.allo_build == "auto" and ls.probed_build is None:
        asyncio.ensure_future(probe_build(ls, jobs.manager, job_config(ls)))
    token = None
    try:
        token = await _begin_progress(ls, f"{target.name}: {target.kind}", target.key)

        def progress(phase: str) -> None:
            if token is not None:
                ls.work_done_progress.report(token, convert.progress_report(phase))

        if target.kind == SYNTHESIZE:
            return await synthesize(jobs.manager, target, model, job_config(ls), synth_config(ls), progress)
        return await run_target(jobs.manager, target, model, job_config(ls), ls.settings.backend, 0, progress,
                                source=source)
    except Exception as exc:  # the server keeps answering whatever a job does
        log.exception("job %s failed", target.key)
        return JobResult(ERROR, CRASH, f"allo-lsp could not run the job: {exc!r}", target=target.name)
    finally:
        if token is not None:
            ls.work_done_progress.end(token, convert.progress_end("done"))
            jobs.progress.pop(str(token), None)
        jobs.running.get(target.uri, set()).discard((target.name, target.kind))


def _cancel_with_request(ls: AlloLanguageServer, key: str) -> None:
    """`$/cancelRequest` of this `executeCommand` cancels its job."""
    manager = ls.jobs.manager
    ls.when_request_cancelled(lambda: manager.cancel(key))


async def _begin_progress(ls: AlloLanguageServer, title: str, key: str):
    caps = ls.client_capabilities.window
    if not (caps and caps.work_done_progress):
        return None
    token = f"allo-lsp-job-{next(_tokens)}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # noqa: BLE001 - a client that refuses progress still gets the job
        return None
    ls.jobs.progress[token] = key
    ls.work_done_progress.begin(token, convert.progress_begin(f"Allo {title}"))
    return token


def _show(ls: AlloLanguageServer, uri: str, name: str, outcome: JobResult, model, still: bool) -> None:
    """The outcome in the log, a failure that points at no line in a message, and the problems
    it points at as diagnostics if the document is `still` open at the text the job ran (lines
    of another text would be wrong)."""
    ls.window_log_message(convert.log_message(outcomes.log_text(outcome)))
    if outcomes.failed_without_line(outcome):
        ls.window_show_message(convert.show_message(f"allo-lsp: {outcomes.summary(outcome)}", error=True))
    found = outcomes.findings(outcome, model, name)
    if not found or not still:
        return
    document = ls.document(uri)
    converter = ls.converter(uri, document.source)
    problems = outcomes.placed(found, list(document.lines))
    ls.job_diagnostics[uri] = [converter.diagnostic(p, outcomes.RUN_SOURCE) for p in problems]
    current = ls.analyses.get(uri)
    if current is not None:
        ls.publish(uri, current)


def _refresh(ls: AlloLanguageServer, uri: str) -> None:
    ls.jobs.lens_changes[uri] = ls.jobs.lens_changes.get(uri, 0) + 1  # lens titles change
    caps = ls.client_capabilities.workspace
    if caps and caps.code_lens and caps.code_lens.refresh_support:
        asyncio.ensure_future(_refresh_async(ls))


async def _refresh_async(ls: AlloLanguageServer) -> None:
    try:
        await ls.workspace_code_lens_refresh_async(None)
    except Exception as exc:  # noqa: BLE001 - a client that cannot refresh asks again on its own
        log.info("codeLens/refresh failed: %r", exc)


def _args(args) -> tuple[str, str]:
    if len(args) < 2 or not all(isinstance(a, str) for a in args[:2]):
        raise ValueError("expected the arguments [uri, name]")
    return args[0], args[1]


def _job_command(kind: str):
    async def command(ls: AlloLanguageServer, *args) -> dict:
        return await start_job(ls, *_args(args), kind)

    command.__name__ = f"start_{kind}"
    return command


def show_report(ls: AlloLanguageServer, *args) -> dict:
    """The last synthesis report of a region as markdown, with the change since the run before."""
    uri, name = _args(args)
    history = ls.jobs.synthesis.get((uri, name), [])
    markdown = report_markdown(name, history)
    return {"markdown": markdown, "report": history[-1].details["report"]} if history else {"markdown": markdown}


def cancel_job(ls: AlloLanguageServer, *args) -> bool:
    """Cancel one job ([uri, name, kind]) or, with no arguments, every running job. Answers at
    once: the job's processes are being killed, and its own command answers "cancelled"."""
    manager = ls.jobs.manager
    if len(args) >= 3 and all(isinstance(a, str) for a in args[:3]):
        return manager.cancel(Target("", args[1], args[2], args[0]).key)
    keys = manager.running()
    for key in keys:
        manager.cancel(key)
    return bool(keys)


async def on_shutdown(ls: AlloLanguageServer, params) -> None:
    await ls.jobs.manager.close(_SHUTDOWN_WAIT_S)


def on_progress_cancel(ls: AlloLanguageServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    key = ls.jobs.progress.get(str(params.token))
    if key is not None:
        ls.jobs.manager.cancel(key)


def on_code_lens(ls: AlloLanguageServer, params: lsp.CodeLensParams) -> Encoded | list:
    """Encoded once per analysis, document version and change of the jobs' state: editors ask
    again on every scroll and focus, and a large file has a thousand lenses."""
    uri = params.text_document.uri
    result = ls.analyses.get(uri)
    if result is None:
        return []
    jobs = ls.jobs
    key = (ls.document(uri).version, jobs.lens_changes.get(uri, 0))
    if result.lenses is not None and result.lenses[0] == key:
        return result.lenses[1]
    analysis, converter, shift = view(ls, uri)
    out = []
    for lens in code_lenses(analysis, jobs.outcomes.get(uri, {}), jobs.running.get(uri, set())):
        moved = range_forward(shift, lens.range)
        if moved is not None:
            out.append(converter.lens_json(uri, replace(lens, range=moved)))
    encoded = Encoded(out)
    result.lenses = (key, encoded)
    return encoded


def register(server: AlloLanguageServer) -> None:
    for kind in (SIMULATE, RUN, MLIR, SYNTHESIZE):
        server.command(COMMANDS[kind])(_job_command(kind))
    server.command(COMMANDS[REPORT])(show_report)
    server.command(CANCEL)(cancel_job)
    server.feature(lsp.SHUTDOWN)(on_shutdown)
    server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)(on_progress_cancel)
    server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)(on_code_lens)
