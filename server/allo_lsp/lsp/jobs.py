"""Jobs from the editor: code lenses, commands, progress, outcomes shown in place.

A job runs only when the user asks (a lens, a command, a code action) and only in a trusted
workspace. It runs the editor's text of the file (saved or not) in an isolated process
(`jobs/editor.py`); its outcome becomes the lens title and, where it points at a line, problems
(`ide/job_outcomes.py`), kept until the next run of the same job or an edit that invalidates them.
"""

from __future__ import annotations

import asyncio
import itertools

from lsprotocol import types as lsp

from allo_lsp.analysis import lsp_newlines
from allo_lsp.ide import log_lines, outcomes
from allo_lsp.ide.lenses import CANCEL, COMMANDS, REPORT
from allo_lsp.ide.synthesis import newest_report, report_markdown
from allo_lsp.jsonrpc.encoded import Encoded
from allo_lsp.lsp import convert
from allo_lsp.lsp.features import view
from allo_lsp.lsp.mlir_view import after_mlir_job, probe_build
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import ENVIRONMENT, ERROR, MLIR, RUN, SIMULATE, SYNTHESIZE, JobResult
from allo_lsp.protocol.vocabulary import SWEEP

SETTINGS_WAIT_S = 10.0  # a job clicked before the client's settings arrived waits for them this long
_SHUTDOWN_WAIT_S = 2.0  # for the jobs' directories to be removed; their processes die anyway
_tokens = itertools.count(1)


async def _refusal(ls: AlloLanguageServer, uri: str) -> str | None:
    """Why the job cannot start, or None."""
    from allo_lsp.jobs.editor import refusal  # the jobs' modules with the first job

    try:  # whether the workspace is trusted comes with the settings
        await asyncio.wait_for(ls.settings_received.wait(), SETTINGS_WAIT_S)
    except asyncio.TimeoutError:
        return "the editor has not sent its settings (workspace trust among them): nothing is run yet"
    return refusal(ls.settings.trusted, uri, ls.document(uri).path, uri in ls.analyses)


async def start_job(ls: AlloLanguageServer, uri: str, name: str, kind: str) -> dict:
    """Run one job to its end and show the outcome; returns it (as JSON) to the client."""
    from allo_lsp.jobs.editor import answer, running_answer
    from allo_lsp.jobs.launch import Target

    _reattach(ls)
    why = await _refusal(ls, uri)
    if why is not None:
        ls.window_show_message(convert.show_message(f"allo-lsp: {why}"))
        return answer(JobResult(ERROR, ENVIRONMENT, why), kind)
    if not ls.jobs.claim(uri, (name, kind)):
        return running_answer(name, kind)  # one job per target: its running lens cancels it
    result, doc = ls.analyses[uri], ls.document(uri)
    model, text = (result.good()[0] or result.current).model, lsp_newlines(doc.source)
    outcome = await _run(ls, Target(doc.path, name, kind, uri), model, doc.source)
    if ls.is_open(uri):  # a closed document's outcomes went with it
        ls.outcomes_of(uri).record((name, kind), outcome, model, text)
    _show(ls, uri, kind, outcome)
    ls.refresh_lenses(uri)
    data = answer(outcome, kind)
    if kind == MLIR:
        data.update(await after_mlir_job(ls, uri, name, model, outcome, text))
    return data


async def _run(ls: AlloLanguageServer, target, model, source: str) -> JobResult:
    """The job's outcome, whatever happens; its progress shown while it runs."""
    ls.refresh_lenses(target.uri)
    ls.protocol.when_cancelled(lambda: ls.jobs.manager.cancel(target.key))  # `$/cancelRequest` cancels it
    config = ls.settings.job_config()
    if ls.settings.allo_build == "auto" and ls.probe.wanted(config):
        asyncio.ensure_future(probe_build(ls, ls.jobs.manager, config))
    token = await _begin_progress(ls, f"{target.name}: {target.kind}", target.key)

    def progress(phase: str) -> None:
        if token is not None:
            ls.work_done_progress.report(token, convert.progress_report(phase))

    try:
        synth, slurm = ls.settings.synth_config(), ls.settings.slurm_config()
        return await ls.jobs.run(target, model, source, config, synth, ls.settings.backend, progress, slurm)
    finally:
        if token is not None:
            ls.work_done_progress.end(token, convert.progress_end("done"))
            ls.jobs.progress.pop(token, None)


async def _begin_progress(ls: AlloLanguageServer, title: str, key: str) -> str | None:
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


def _reattach(ls: AlloLanguageServer) -> None:
    """Once: the cluster jobs a server before this one left running, followed to their outcomes."""
    if ls.jobs.cluster.on_change is None:
        from allo_lsp.jobs.slurm_jobs import given_storage

        ls.jobs.cluster.given = given_storage(getattr(ls, "workspace_storage", None))
        for uri, name, pending in ls.jobs.reattach(ls.workspace.root_path, ls.refresh_lenses):
            asyncio.ensure_future(_collected(ls, uri, name, pending))


async def _collected(ls: AlloLanguageServer, uri: str, name: str, pending) -> None:
    outcome, result = await pending, ls.analyses.get(uri)
    if result is not None and ls.is_open(uri):
        model, text = (result.good()[0] or result.current).model, lsp_newlines(ls.document(uri).source)
        ls.outcomes_of(uri).record((name, SYNTHESIZE), outcome, model, text)
    _show(ls, uri, SYNTHESIZE, outcome)
    ls.refresh_lenses(uri)


def _show(ls: AlloLanguageServer, uri: str, kind: str, outcome: JobResult) -> None:
    """The outcome in the log, a failure that points at no line in a message, and the
    document's problems again (this job's replace its last run's, whether it found any)."""
    ls.log(*log_lines.job_lines(outcome, ls.document(uri).path or uri, kind))
    if outcomes.failed_without_line(outcome):
        ls.window_show_message(convert.show_message(f"allo-lsp: {outcomes.summary(outcome)}", error=True))
    current = ls.analyses.get(uri)
    if current is not None and ls.is_open(uri):
        ls.publish(uri, current)


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
    return {"markdown": markdown, "report": newest_report(history)} if history else {"markdown": markdown}


async def sweep(ls: AlloLanguageServer, *args) -> dict:
    """A region's sweep (`jobs/sweep_editor.py`): [uri, region] its parameters, [uri, region, sets] its table."""
    from allo_lsp.jobs.sweep_editor import command

    _reattach(ls)  # where the workspace's cluster jobs are kept, too
    uri, name = _args(args)
    why, doc, storage = await _refusal(ls, uri), ls.document(uri), ls.jobs.cluster.storage_for(ls.workspace.root_path)
    if why is not None:
        return {"status": ERROR, "message": why}
    return await command(doc.path, name, doc.source, args[2:], ls.settings, storage, ls.protocol.when_cancelled)


def cancel_job(ls: AlloLanguageServer, *args) -> bool:
    """Cancel one job ([uri, name, kind]) or, with no arguments, every running job. Answers at
    once: the job's processes are being killed, and its own command answers "cancelled"."""
    return ls.jobs.cancel(args)


async def on_shutdown(ls: AlloLanguageServer, params) -> None:
    await ls.jobs.manager.close(_SHUTDOWN_WAIT_S)


def on_progress_cancel(ls: AlloLanguageServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    key = ls.jobs.progress.get(str(params.token))
    if key is not None:
        ls.jobs.manager.cancel(key)


def on_code_lens(ls: AlloLanguageServer, params: lsp.CodeLensParams) -> Encoded | list:
    """Encoded once per analysis, document version and change of the jobs' state: editors ask
    again on every scroll and focus, and a large file has a thousand lenses. A lens on a line
    being edited is left out until the analysis of the new text, which then refreshes them."""
    uri = params.text_document.uri
    result = ls.analyses.get(uri)
    if result is None:
        if ls.is_analysed(uri):  # its first analysis is to come: asked again after it
            ls.lenses_to_refresh.add(uri)
        return []
    _reattach(ls)
    key = (ls.document(uri).version, ls.jobs.lens_changes.get(uri, 0))
    if result.lenses is not None and result.lenses[0] == key:
        return result.lenses[1]
    current, converter = view(ls, uri)
    outcomes = ls.outcomes_of(uri).outcomes(current.text)
    lenses, left_out = current.lenses(outcomes, ls.jobs.lens_states(uri))
    if left_out:
        ls.lenses_to_refresh.add(uri)
    encoded = Encoded([converter.lens_json(uri, lens) for lens in lenses])
    result.lenses = (key, encoded)
    return encoded


def register(server: AlloLanguageServer) -> None:
    for kind in (SIMULATE, RUN, MLIR, SYNTHESIZE):
        server.command(COMMANDS[kind])(_job_command(kind))
    server.command(COMMANDS[REPORT])(show_report)
    server.command(CANCEL)(cancel_job)
    server.command(SWEEP)(sweep)
    server.feature(lsp.SHUTDOWN)(on_shutdown)
    server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)(on_progress_cancel)
    server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)(on_code_lens)
