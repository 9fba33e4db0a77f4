"""The jobs an editor's server runs for its documents: one per target at a time, each to an
outcome whatever happens, with what later requests read (synthesis histories, reproducers).

Which job ran and how it ended is plain data here; the server shows it (`lsp/jobs.py`), the
`ide` layer says what it means on the text.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from allo_lsp.analysis.model import FileModel
from allo_lsp.jobs.environment import SetupError
from allo_lsp.jobs.launch import Target, unknown_target
from allo_lsp.jobs.manager import JobManager, Progress
from allo_lsp.jobs.previous_reports import PreviousReports
from allo_lsp.jobs.service import run_target
from allo_lsp.jobs.slurm import JobState
from allo_lsp.jobs.slurm_jobs import ClusterJobs, batch_spec
from allo_lsp.jobs.synthesis import keep_reports, synthesize
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.messages import CRASH, ENVIRONMENT, ERROR, MESSAGE_LIMIT, SYNTHESIZE, JobResult, bounded
from allo_lsp.settings import Settings

log = logging.getLogger(__name__)
SETTINGS_WAIT_S = 10.0  # a job clicked before the client's settings arrived waits for them this long

# Documents that are not files on disk: what to say instead of running them.
_NOT_FILES = {
    "untitled": "save the file first: a job runs a file on disk (with your unsaved edits)",
    "vscode-notebook-cell": "notebook cells are not supported: put the design in a .py file",
    "vscode-notebook": "notebooks are not supported: put the design in a .py file",
}


def not_runnable(uri: str) -> str | None:
    """Why a document cannot run, or None: only `file:` URIs run (an `http:` document is
    someone else's text)."""
    scheme = urlsplit(uri).scheme
    if scheme == "file":
        return None
    return _NOT_FILES.get(scheme, f"only files on disk run: {bounded(uri, 200)} is not one")


def refusal(trusted: bool, uri: str, path: str | None, model: FileModel | None, name: str, kind: str) -> str | None:
    """Why the `kind` job of `name` in this document (`model`: its analysis, None before the
    first) cannot start, or None: checked before anything is made for it."""
    if not trusted:
        return "this workspace is not trusted: allo-lsp runs nothing in it (analysis still works)"
    why = not_runnable(uri)
    if why is not None:
        return why
    if not path:
        return f"{bounded(uri, 200)} is not a file on disk"
    if model is None:
        return "the file has not been analysed yet"
    return unknown_target(model, name, kind)


async def refusal_once_told(told: asyncio.Event, refused: Callable[[], str | None]) -> str | None:
    """Why a job cannot start (`refused()`, see `refusal`), once the client's settings are
    `told`: whether the workspace is trusted comes with them."""
    try:
        await asyncio.wait_for(told.wait(), SETTINGS_WAIT_S)
    except asyncio.TimeoutError:
        return "the editor has not sent its settings (workspace trust among them): nothing is run yet"
    return refused()


@dataclass
class EditorJobs:
    # After the user's first job, a runner is pre-started so the next one begins at once.
    manager: JobManager = field(default_factory=lambda: JobManager(prestart=True, owns_kept_dirs=True))
    running: dict[str, set[tuple[str, str]]] = field(default_factory=dict)  # uri -> (name, kind)
    progress: dict[str, str] = field(default_factory=dict)  # progress token -> job key
    # uri -> the first values per PE and FIFO its reference runs keep (`DocumentStore.trace_values`)
    trace_values: Callable[[str], int] = lambda uri: 0
    lens_changes: dict[str, int] = field(default_factory=dict)  # uri -> jobs started or ended
    # Synthesis runs that produced a report, per (uri, region): the newest (`KEPT_REPORTS`); and
    # the report before it, of this server's runs or an earlier server's (`previous_reports.py`).
    synthesis: dict[tuple[str, str], list[JobResult]] = field(default_factory=dict)
    before: dict[tuple[str, str], dict | None] = field(default_factory=dict)
    previous_reports: PreviousReports | None = None  # made once the workspace's storage is known
    reproducers: dict[str, tuple[str, str]] = field(default_factory=dict)  # uri -> (target, script) of a library bug
    cluster: ClusterJobs = field(default_factory=ClusterJobs)  # synthesis on Slurm (`alloDataflow.scheduler`)
    _tokens: itertools.count = field(default_factory=lambda: itertools.count(1))

    def forget(self, uri: str) -> None:
        """A closed document: what only its open editor reads (its lenses' change count, the
        reproducer of its last library bug). Its running jobs go on to their outcomes, and its
        synthesis histories stay: the report view of the document reopened compares with them."""
        self.lens_changes.pop(uri, None)
        self.reproducers.pop(uri, None)

    def claim(self, uri: str, job: tuple[str, str]) -> bool:
        """Mark `job` running, unless it is (False): one job per target at a time. `run` ends it."""
        running = self.running.setdefault(uri, set())
        if job in running:
            return False
        running.add(job)
        return True

    def progress_token(self, key: str) -> str:
        """A new progress token for the job `key` (the client's Cancel of its progress cancels it)."""
        token = f"allo-lsp-job-{next(self._tokens)}"
        self.progress[token] = key
        return token

    def cancel_progress(self, token: str) -> None:
        key = self.progress.get(token)
        if key is not None:
            self.manager.cancel(key)

    def changed(self, uri: str) -> None:
        """The lens titles of `uri` change (a job started or ended)."""
        self.lens_changes[uri] = self.lens_changes.get(uri, 0) + 1

    async def run(self, target: Target, model: FileModel, source: str, settings: Settings, progress: Progress):
        """Run the `claim`ed job to its outcome (a failure of ours too is one), keeping what
        later requests read. With a Slurm scheduler, synthesis is submitted to the cluster."""
        config, synth, slurm = settings.job_config(), settings.synth_config(), settings.slurm_config()
        try:
            if target.kind == SYNTHESIZE and slurm is not None:
                outcome = await self._submit(target, source, config, synth, slurm)
            elif target.kind == SYNTHESIZE:
                outcome = await synthesize(self.manager, target, model, config, synth, progress)
            else:
                traced = replace(target, trace=self.trace_values(target.uri))
                outcome = await run_target(
                    self.manager, traced, model, config, settings.backend, 0, progress, source=source
                )
        except Exception as exc:  # the server keeps answering whatever a job does
            log.exception("job %s failed", target.key)
            outcome = JobResult(ERROR, CRASH, f"allo-lsp could not run the job: {exc!r}", target=target.name)
        finally:
            self.running.get(target.uri, set()).discard((target.name, target.kind))
        outcome.message = bounded(outcome.message, MESSAGE_LIMIT)
        if target.kind == SYNTHESIZE:
            self._keep(target.uri, target.name, target.file, outcome)
        if outcome.reproducer:
            self.reproducers[target.uri] = (target.name, outcome.reproducer)
        return outcome

    async def _submit(self, target: Target, source: str, config, synth, slurm) -> JobResult:
        try:
            spec = batch_spec(target.file, target.name, source, config, synth)
        except SetupError as exc:  # nothing submitted, nothing written
            return JobResult(ERROR, ENVIRONMENT, str(exc), target=target.name).of_kind(SYNTHESIZE)
        return await self.cluster.synthesize(target.key, target.uri, spec, slurm)

    def cancel(self, args: tuple) -> bool:
        """Cancel one job ([uri, name, kind], strings) or, with no arguments, every running job."""
        if args:
            uri, name, kind = args
            key = Target("", name, kind, uri).key
            return self.manager.cancel(key) or self.cluster.cancel(key)
        keys = self.manager.running()
        for key in keys:
            self.manager.cancel(key)
        for key in self.cluster.keys():
            self.cluster.cancel(key)
        return bool(keys or self.cluster.keys())

    def lens_states(self, uri: str) -> dict[tuple[str, str], JobState | None]:
        """The running jobs of `uri`, each with its cluster state (None: a local job)."""
        return {job: self.cluster.states.get((uri, job[0])) for job in self.running.get(uri, set())}

    def reattach(
        self,
        workspace_root: str | None,
        on_change: Callable[[str], None],
        collected: Callable[[str, str, JobResult], None],
    ) -> None:
        """Each synthesis a server before this one left on the cluster (once per server), followed
        again (`on_change(uri)`: its lens shows its state) and `collected(uri, region, outcome)`
        as if started here."""
        for entry in self.cluster.attach(workspace_root, on_change):
            if entry.uri and entry.points == 1 and self.claim(entry.uri, (entry.region, SYNTHESIZE)):
                asyncio.ensure_future(self._follow(entry, collected))

    async def _follow(self, entry, collected: Callable[[str, str, JobResult], None]) -> None:
        try:
            outcome = await self.cluster.follow(Target("", entry.region, SYNTHESIZE, entry.uri).key, entry)
        finally:
            self.running.get(entry.uri, set()).discard((entry.region, SYNTHESIZE))
        self._keep(entry.uri, entry.region, entry.file, outcome)
        collected(entry.uri, entry.region, outcome)

    def _keep(self, uri: str, region: str, file: str, outcome: JobResult) -> None:
        """A synthesis outcome kept for the report view (with the report it follows) if it has a report."""
        report = details_as(outcome.details, SynthesisDetails).report
        if report is not None:
            if self.previous_reports is None:
                self.previous_reports = PreviousReports(self.cluster.storage)
            self.before[(uri, region)] = self.previous_reports.swap(file, region, report)
        keep_reports(self.synthesis.setdefault((uri, region), []), outcome)

    def reports_to_compare(self, uri: str, region: str) -> tuple[JobResult | None, dict | None]:
        """The region's newest synthesis outcome with a report, and the report of the run before."""
        history = self.synthesis.get((uri, region))
        return (history[-1], self.before.get((uri, region))) if history else (None, None)

    def reports_of(self, uri: str) -> dict[str, dict]:
        """Region name -> its newest synthesis report, for the document."""
        newest = {
            name: details_as(history[-1].details, SynthesisDetails).report
            for (u, name), history in self.synthesis.items()
            if u == uri and history
        }
        return {name: report for name, report in newest.items() if report}
