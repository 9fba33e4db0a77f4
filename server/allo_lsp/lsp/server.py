"""`allo-lsp serve`: the language server's state, documents and analysis (handlers: `features.py`,
`jobs.py`).

Analysis runs off the event loop (`asyncio.to_thread`), one at a time, of the newest text
(`ide/scheduler.py`); a result is kept and shown only if the document is still at the version
that was analysed. Its problems are sent to the client (publishDiagnostics) or, to a client that
pulls them (LSP 3.17), answered when asked (`diagnostics.py`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from allo_lsp import __version__
from allo_lsp.analysis import Options, lsp_newlines
from allo_lsp.ide.document import DocumentAnalysis, keep_parse_caches
from allo_lsp.ide.job_outcomes import JobOutcomes
from allo_lsp.ide.log_lines import DEBUG, ERROR, LogLine, shown
from allo_lsp.ide.mlir_view import is_view
from allo_lsp.ide.project_config import ProjectConfigs
from allo_lsp.ide.scheduler import AnalysisQueue
from allo_lsp.ide.workspace_reports import WorkspaceReports, background_start
from allo_lsp.jobs.build_probe import BuildProbe
from allo_lsp.jsonrpc.protocol import Protocol
from allo_lsp.jsonrpc.stdio import CheckedStdioServer
from allo_lsp.lsp import convert
from allo_lsp.lsp.convert import Converter
from allo_lsp.settings import SECTION, Settings, parse_settings

if TYPE_CHECKING:
    from allo_lsp.jobs.editor import EditorJobs

log = logging.getLogger(__name__)


class AlloLanguageServer(CheckedStdioServer):
    def __init__(self) -> None:
        super().__init__(
            "allo-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental, protocol_cls=Protocol
        )
        self.settings = Settings()
        # Set once the client's settings have been asked for (or cannot be): until then they are
        # the defaults, and `trusted` defaults to true, so no job may start before.
        self.settings_received = asyncio.Event()
        self.analyses: dict[str, DocumentAnalysis] = {}
        self._recent: list[str] = []  # the documents analysed last, newest first
        self.queue = AnalysisQueue(self.analyse, self._failed)
        self.pulls = False  # the client pulls diagnostics: `diagnostics.py`
        self.workspace_files: WorkspaceReports | None = None  # once the client pulls the workspace's
        self._refreshing = False  # a workspace/diagnostic/refresh request is on its way
        self._refresh_wanted = False  # and another is to follow it
        self.job_outcomes: dict[str, JobOutcomes] = {}  # what each open document shows of its jobs
        self.lenses_to_refresh: set[str] = set()  # documents whose last lenses left one out (an edited line)
        self.mlir_views: dict[str, object] = {}  # allo-mlir: URI -> ide.mlir_view.MlirView
        self.probe = BuildProbe()  # what the probe found the configured Allo does
        self.configs = ProjectConfigs()  # the documents' [tool.allo-lsp], by pyproject.toml

    @functools.cached_property
    def jobs(self) -> EditorJobs:
        """Made on first use (a job, a lens after the first analysis): not before the first diagnostics."""
        from allo_lsp.jobs.editor import EditorJobs

        return EditorJobs()

    @functools.cached_property
    def background(self) -> ProcessPoolExecutor:
        """The process the workspace's files are analysed in (spawned: the server has threads)."""
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=background_start)

    def shutdown(self) -> None:
        if "background" in self.__dict__:  # started
            self.background.shutdown(wait=False, cancel_futures=True)
        super().shutdown()

    # -- analysis ---------------------------------------------------------------------------

    def options(self) -> Options:
        build = (self.settings.allo_build == "auto" and self.probe.found) or self.settings.allo_build
        return Options(allo_build=build, omp_threads=self.settings.omp_threads)

    def document_options(self, uri: str) -> Options:
        """The options of one document: the settings and its project's [tool.allo-lsp] (whose
        allo-build counts when the setting is `auto`); that configuration's problems are shown."""
        path = self.document(uri).path if uri.startswith("file:") else None
        options = self.configs.options(path, self.options(), self.settings.allo_build != "auto")
        for found in self.configs.unreported():  # on the pyproject.toml itself
            config_uri = found.path.as_uri()
            diagnostics = [self.converter(config_uri, found.text).diagnostic(p) for p in found.problems]
            self.text_document_publish_diagnostics(convert.published(config_uri, diagnostics))
        return options

    async def analyse(self, uri: str) -> None:
        """Analyse the document as it is now, and keep and show the result if it is still current;
        or a workspace file that is not open, from disk."""
        if not self.is_open(uri):
            if self.workspace_files is not None and self.workspace_files.knows(uri):
                await self.workspace_files.analyse(uri, self.document_options(uri), self.background)
            return
        doc, started = self.workspace.get_text_document(uri), time.monotonic()
        text, version = lsp_newlines(doc.source), doc.version
        previous = self.analyses.get(uri)
        result = await asyncio.to_thread(DocumentAnalysis.build, text, version, self.document_options(uri), previous)
        took = f"{uri} v{version}: analysed in {(time.monotonic() - started) * 1000:.1f} ms"
        self.log(LogLine(DEBUG, f"{took}, from {started:.4f} s"))  # a benchmark reads it: one at a time
        if uri not in self.open_uris() or self.workspace.get_text_document(uri).version != version:
            return  # superseded: the queue analyses the newer text next
        self.analyses[uri] = result
        self._recent = keep_parse_caches(self.analyses, self._recent, uri)
        self.publish(uri, result)

    def is_analysed(self, uri: str) -> bool:
        """Analysed, or its first analysis to come: a document that is not analysed at all (an
        MLIR view) is neither."""
        return uri in self.analyses or self.queue.is_pending(uri)

    def forget(self, uri: str) -> None:
        """A closed document: its analysis, to come or done, and its jobs' outcomes (for the
        text its jobs ran: gone with the document)."""
        self.queue.forget(uri)
        self.analyses.pop(uri, None)
        self.job_outcomes.pop(uri, None)

    def schedule(self, uri: str, delay: float = 0.0) -> None:
        self.queue.request(uri, delay)

    def _failed(self, uri: str, exc: BaseException) -> None:
        log.error("analysis of %s failed", uri, exc_info=exc)
        self.log(LogLine(ERROR, f"analysis of {uri} failed: {exc!r}"))

    def log(self, *lines: LogLine) -> None:
        """`window/logMessage` of each line `alloDataflow.logLevel` shows."""
        for line in (line for line in lines if shown(line.level, self.settings.log_level)):
            self.window_log_message(convert.log_message(line.text, line.level))

    def outcomes_of(self, uri: str) -> JobOutcomes:
        return self.job_outcomes.setdefault(uri, JobOutcomes())

    def diagnostics(self, uri: str, result: DocumentAnalysis) -> list[lsp.Diagnostic]:
        """The analysis' problems and those of the jobs whose outcomes hold on its text."""
        converter, outcomes = self.converter(uri, result.text), self.outcomes_of(uri).problems(result.text)
        return converter.diagnostics(result.problems) + [converter.diagnostic(p.problem, p.source) for p in outcomes]

    def publish(self, uri: str, result: DocumentAnalysis) -> None:
        """Show the document's diagnostics: sent, or (to a client that pulls) ready to be asked for."""
        if self.pulls:
            asyncio.ensure_future(self._pullable(uri))
        else:
            diagnostics = self.diagnostics(uri, result)
            self.text_document_publish_diagnostics(convert.published(uri, diagnostics, result.version))
        if uri in self.lenses_to_refresh:  # the lenses on its edited lines are back
            self.lenses_to_refresh.discard(uri)
            self.refresh_lenses(uri)

    async def _pullable(self, uri: str) -> None:
        """The pulls waiting for this analysis get it (`queue.until`); with none waiting (a job's
        outcome, new settings), the client is asked to pull again."""
        if self.queue.waits_for(uri):
            return
        self._refresh_wanted = True
        if self._refreshing:
            return  # the one on its way is followed by another: what changed meanwhile is pulled too
        self._refreshing = True
        while self._refresh_wanted:
            self._refresh_wanted = False
            await self._ask(self.workspace_diagnostic_refresh_async, "workspace/diagnostic/refresh")
        self._refreshing = False

    def refresh_lenses(self, uri: str) -> None:
        """The lenses of `uri` change: asked again by a client that can be told."""
        self.jobs.changed(uri)
        caps = self.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            asyncio.ensure_future(self._ask(self.workspace_code_lens_refresh_async, "codeLens/refresh"))

    async def _ask(self, request, method: str) -> None:
        try:
            await request(None)
        except Exception as exc:  # noqa: BLE001 - a client that cannot be told asks again on its own
            log.info("%s failed: %r", method, exc)

    def open_uris(self) -> set[str]:
        """Open documents that are analysed (Python files), by the URI the client wrote
        (`file:///my%20designs/top.py`), under which diagnostics reach the client."""
        return {doc.uri for doc in self.workspace.text_documents.values() if not is_view(doc.uri)}

    def converter(self, uri: str, text: str) -> Converter:
        return Converter(self.workspace.position_codec, lsp_newlines(text).split("\n"))

    def document(self, uri: str) -> TextDocument:
        """The document at `uri`; one the client has not opened is empty (`ClientDocument`)."""
        return self.workspace.get_text_document(uri)

    def is_open(self, uri: str) -> bool:
        return uri in self.workspace.text_documents  # keyed as the client wrote it (ClientWorkspace)

    # -- settings ---------------------------------------------------------------------------

    def apply_settings(self, raw) -> None:
        settings, warnings = parse_settings(raw, Settings())
        for warning in warnings:
            self.window_show_message(convert.show_message(f"allo-lsp: {warning}"))
        changed = settings != self.settings
        if settings.python != self.settings.python or settings.allo_build != self.settings.allo_build:
            self.probe = BuildProbe()  # another Allo: probe again when it matters
        if settings.runner_environment() != self.settings.runner_environment():
            self.jobs.manager.discard_warm()  # started for another interpreter or environment
        self.settings = settings
        if changed:
            for uri in self.open_uris():
                self.schedule(uri)
            if self.workspace_files is not None:  # analysed with other options: again when pulled
                self.workspace_files.reports.clear()

    async def pull_settings(self) -> None:
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        try:
            result = await self.workspace_configuration_async(convert.configuration_request(SECTION))
        except Exception as exc:  # noqa: BLE001 - a client that cannot answer: keep what we have
            log.warning("workspace/configuration failed: %r", exc)
            return
        self.apply_settings(result[0] if result else None)
