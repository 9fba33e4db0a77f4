"""Jobs from the editor: code lenses, commands, progress, outcomes shown in place.

A job runs only when the user asks (a lens, a command, a code action), in a trusted workspace, on
the editor's text of the file (saved or not): `session/editor.py`. What its outcome shows (the lens
title, problems, an MLIR view) is `session/store.py`'s, kept until the next run of the same job or an
edit that invalidates it. With `alloBuild: auto`, the first job starts the build probe.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from allo_lsp.analysis.model import FileModel
from allo_lsp.ide import log_lines, outcomes
from allo_lsp.ide.lenses import CANCEL, COMMANDS, FILES, REPORT
from allo_lsp.ide.mlir_view import compiled_by
from allo_lsp.ide.synthesis import file_links, report_view
from allo_lsp.lsp import convert
from allo_lsp.lsp.jsonrpc.encoded import Encoded
from allo_lsp.lsp.jsonrpc.params import STRING, STRINGS, TOKEN, arguments, nullable, record
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import ENVIRONMENT, ERROR, MLIR, RUN, SIMULATE, SYNTHESIZE, JobResult
from allo_lsp.protocol.vocabulary import SWEEP

_SHUTDOWN_WAIT_S = 2.0  # for the jobs' directories to be removed; their processes die anyway
TARGET, KIND, SETS = (("uri", STRING), ("name", STRING)), ("kind", STRING), ("sets", STRINGS)
SWEEP_OPTIONS = ("options", record(progress=nullable(TOKEN)))  # the client's progress token (a job's too)


async def _refusal(ls: AlloLanguageServer, uri: str, name: str, kind: str) -> str | None:
    """Why the job cannot start (its name checked against the document's analysis too), or None."""
    from allo_lsp.session.editor import refusal, refusal_once_told  # the jobs' modules with the first job

    await ls.first_analysis(uri)  # a job asked for at once after open (its kept problems shown) runs

    def refused() -> str | None:
        return refusal(ls.settings.trusted, uri, ls.document(uri).path, ls.store.model(uri), name, kind)

    return await refusal_once_told(ls.settings_received, refused)


async def start_job(ls: AlloLanguageServer, uri: str, name: str, kind: str, options: dict | None = None) -> dict:
    """Run one job, show and return its outcome (JSON); `options`: the client's progress token, if any."""
    from allo_lsp.jobs.launch import Target

    _reattach(ls)
    why = await _refusal(ls, uri, name, kind)
    if why is not None:
        ls.window_show_message(convert.show_message(f"allo-lsp: {why}"))
        return convert.job_answer(JobResult(ERROR, ENVIRONMENT, why), kind)
    if not ls.jobs.claim(uri, (name, kind)):
        return convert.running_answer(name, kind)  # one job per target: its running lens cancels it
    doc, model, text = ls.document(uri), ls.store.model(uri), ls.text(uri)
    outcome = await _run(ls, Target(doc.path, name, kind, uri), model, doc.source, (options or {}).get("progress"))
    _finished(ls, uri, (name, kind), outcome, model, text)
    data = convert.job_answer(outcome, kind)
    if kind == MLIR and (found := await asyncio.to_thread(compiled_by, outcome, model, name)) is not None:
        data.update(ls.store.add_mlir_view(uri, doc.path or uri, name, found, text))
        ls.republish(uri)  # with the signature's problems
    return data


async def _run(ls: AlloLanguageServer, target, model: FileModel, source: str, given=None) -> JobResult:
    """The job's outcome, whatever happens; its progress shown while it runs."""
    ls.refresh_lenses(target.uri)
    ls.protocol.when_cancelled(lambda: ls.jobs.manager.cancel(target.key))  # `$/cancelRequest` cancels it
    settings = ls.settings
    if settings.allo_build == "auto":
        asyncio.ensure_future(_probe_build(ls, settings.job_config()))
    token = given if given is not None else await _begin_progress(ls, f"{target.name}: {target.kind}", target.key)

    def progress(phase: str) -> None:
        if token is not None:
            ls.work_done_progress.report(token, convert.progress_report(phase))

    try:
        return await ls.jobs.run(target, model, source, settings, progress)
    finally:
        if token is not None and given is None:
            ls.work_done_progress.end(token, convert.progress_end("done"))
            ls.jobs.progress.pop(token, None)


async def _begin_progress(ls: AlloLanguageServer, title: str, key: str) -> str | None:
    caps = ls.client_capabilities.window
    if not (caps and caps.work_done_progress):
        return None
    token = ls.jobs.progress_token(key)
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # noqa: BLE001 - a client that refuses progress still gets the job
        ls.jobs.progress.pop(token, None)
        return None
    ls.work_done_progress.begin(token, convert.progress_begin(f"Allo {title}"))
    return token


async def _probe_build(ls: AlloLanguageServer, config) -> None:
    """Learn once per settings whether the configured Allo reorders top arguments (`jobs/build_probe.py`)."""
    probe = ls.probe
    if (outcome := await probe.run(ls.jobs.manager, config)) is None or probe is not ls.probe:
        return  # probed already, or the settings changed meanwhile (a job of theirs probes again)
    ls.log(*log_lines.probe_lines(probe.interpreter(), probe.found, outcome))
    if probe.found is not None:
        ls.schedule_open()


def _reattach(ls: AlloLanguageServer) -> None:
    """Once, if trusted (following runs Slurm's commands): the cluster jobs of earlier servers followed."""
    if ls.jobs.cluster.on_change is None:
        from allo_lsp.jobs.slurm_jobs import given_storage

        ls.jobs.cluster.given = given_storage(ls.workspace_storage)
        if ls.settings.trusted:
            ls.jobs.reattach(ls.workspace.root_path, ls.refresh_lenses, lambda *done: _collected(ls, *done))


def _collected(ls: AlloLanguageServer, uri: str, name: str, outcome: JobResult) -> None:
    _finished(ls, uri, (name, SYNTHESIZE), outcome, ls.store.model(uri), ls.text(uri))


def _finished(ls: AlloLanguageServer, uri: str, job: tuple[str, str], outcome: JobResult, model, text: str) -> None:
    """The outcome kept, logged, in the problems and lenses; an environment's failure asks with its fixes."""
    ls.store.record(uri, job, outcome, model, text)
    ls.log(*log_lines.job_lines(outcome, ls.document(uri).path or uri, job[1]))
    if (told := outcomes.failure_message(outcome)) is not None:
        ls.window_show_message_request(convert.message_request(*told))
    ls.republish(uri)
    ls.refresh_lenses(uri)


def _job_command(kind: str):
    async def command(ls: AlloLanguageServer, uri: str, name: str, options: dict | None = None) -> dict:
        return await start_job(ls, uri, name, kind, options)

    command.__name__ = f"start_{kind}"
    return command


def show_report(ls: AlloLanguageServer, uri: str, name: str) -> dict:
    """The last synthesis report of a region, and the change since the run before (`ide/synthesis.py`)."""
    return report_view(name, *ls.jobs.reports_to_compare(uri, name))


def show_synthesis_files(ls: AlloLanguageServer, uri: str, name: str) -> dict:
    """What the last synthesis of a region kept (the Files lens): its HLS project, log and C++."""
    return {"files": file_links(ls.jobs.reports_to_compare(uri, name)[0])}


async def sweep(ls: AlloLanguageServer, uri: str, name: str, *rest) -> dict:
    """A region's sweep (`session/sweep_editor.py`): [uri, region] its parameters, [uri, region, sets] its table."""
    from allo_lsp.session.sweep_editor import command

    _reattach(ls)  # where the workspace's cluster jobs are kept, too
    why, doc = await _refusal(ls, uri, name, SYNTHESIZE), ls.document(uri)
    storage = ls.jobs.cluster.storage_for(ls.workspace.root_path)
    if why is not None:
        return {"status": ERROR, "message": why}

    def progress(token, message: str) -> None:  # each point done, on the token the client gave the sweep
        ls.work_done_progress.report(token, convert.progress_report(message))

    return await command(doc.path, name, doc.source, rest, ls.settings, storage, ls.protocol.when_cancelled, progress)


def cancel_job(ls: AlloLanguageServer, *args) -> bool:
    """Cancel one job ([uri, name, kind]) or every one; answers at once (its command: "cancelled")."""
    return ls.jobs.cancel(args)


async def on_shutdown(ls: AlloLanguageServer, params) -> None:
    await ls.jobs.manager.close(_SHUTDOWN_WAIT_S)


def on_progress_cancel(ls: AlloLanguageServer, params: lsp.WorkDoneProgressCancelParams) -> None:
    ls.jobs.cancel_progress(str(params.token))


def on_code_lens(ls: AlloLanguageServer, params: lsp.CodeLensParams) -> Encoded | list:
    """The lenses, encoded once per version and change of the jobs' state (`session/store.py`)."""
    uri = params.text_document.uri
    _reattach(ls)  # the workspace's cluster jobs, whatever this document's analysis
    if uri not in ls.store.analyses:
        if ls.is_analysed(uri):  # its first analysis is to come: asked again after it
            ls.store.lenses_to_refresh.add(uri)
        return []
    key = (ls.document(uri).version, ls.jobs.lens_changes.get(uri, 0))
    if (cached := ls.store.cached_lenses(uri, key)) is not None:
        return cached
    text = ls.text(uri)
    converter, lenses = ls.converter(uri, text), ls.store.lenses(uri, text, ls.jobs.lens_states(uri))
    return ls.store.cache_lenses(uri, key, Encoded([converter.lens_json(uri, lens) for lens in lenses]))


def register(server: AlloLanguageServer) -> None:
    """Each command with its arguments, checked before it runs (`jsonrpc/params.py`)."""
    jobs = (SIMULATE, RUN, MLIR, SYNTHESIZE)
    commands = [(COMMANDS[kind], _job_command(kind), (*TARGET, SWEEP_OPTIONS), (2, 3)) for kind in jobs]
    commands += [(COMMANDS[REPORT], show_report, TARGET, None), (COMMANDS[FILES], show_synthesis_files, TARGET, None)]
    commands += [(CANCEL, cancel_job, (*TARGET, KIND), (0, 3))]
    commands += [(SWEEP, sweep, (*TARGET, SETS, SWEEP_OPTIONS), (2, 3, 4))]
    for command, handler, names, counts in commands:
        server.command(command)(arguments(command, *names, counts=counts)(handler))
    server.feature(lsp.SHUTDOWN)(on_shutdown)
    server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)(on_progress_cancel)
    server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)(on_code_lens)
