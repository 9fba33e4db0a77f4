"""`allo-lsp serve`: the server's state, the documents' analysis and the settings (handlers:
`features.py`, `jobs.py`, `diagnostics.py`). An analysis runs off the event loop, one at a time
(`session/scheduler.py`), and is kept (`session/store.py`) and shown only if the document is still at the
version analysed: sent to the client, or answered when a client that pulls asks."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.workspace import TextDocument

from allo_lsp import __version__, host
from allo_lsp.analysis import Options, lsp_newlines
from allo_lsp.ide.current import Current
from allo_lsp.ide.document import DocumentAnalysis
from allo_lsp.ide.log_lines import DEBUG, ERROR, LogLine, shown
from allo_lsp.ide.mlir_view import is_view
from allo_lsp.jobs.build_probe import BuildProbe
from allo_lsp.lsp import convert
from allo_lsp.lsp.convert import Converter
from allo_lsp.lsp.jsonrpc.protocol import Protocol
from allo_lsp.lsp.jsonrpc.stdio import CheckedStdioServer
from allo_lsp.protocol.messages import bounded
from allo_lsp.session.problem_cache import ProblemCache
from allo_lsp.session.project_config import ProjectConfigs
from allo_lsp.session.refresh import Refresh
from allo_lsp.session.scheduler import AnalysisQueue
from allo_lsp.session.store import DocumentStore
from allo_lsp.session.workspace_files import folder_paths
from allo_lsp.session.workspace_reports import WorkspaceReports
from allo_lsp.settings import SECTION, Settings, Unreadable, parse_settings

if TYPE_CHECKING:
    from allo_lsp.session.editor import EditorJobs

log = logging.getLogger(__name__)
CONFIGURATION_WAIT_S = 30.0  # for the client's answer to workspace/configuration
FIRST_ANALYSIS_WAIT_S = 10.0  # a request on a document not yet analysed waits this long, then answers


class AlloLanguageServer(CheckedStdioServer):
    def __init__(self) -> None:
        super().__init__(
            "allo-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental, protocol_cls=Protocol
        )
        self.settings = Settings()  # untrusted until the client says otherwise
        # Set once the client's settings have been asked for (or cannot be): a job asked for
        # before waits for them (whether the workspace is trusted comes with them).
        self.settings_received = asyncio.Event()
        self.store = DocumentStore()  # the open documents' analyses, jobs' outcomes, MLIR views
        self.queue = AnalysisQueue(self.analyse, self._failed)
        self.pulls = False  # the client pulls diagnostics: `diagnostics.py`
        self.workspace_files: WorkspaceReports | None = None  # once the client pulls the workspace's
        self.diagnostics_refresh = Refresh(lambda: self._ask(self.workspace_diagnostic_refresh_async))
        self.probe = BuildProbe()  # what the probe found the configured Allo does
        self.configs = ProjectConfigs()  # the documents' [tool.allo-lsp], by pyproject.toml
        self.workspace_storage: str | None = None  # the editor's storage for this workspace (`initialize`)
        self.problem_cache = ProblemCache(None)  # in that storage, once given

    @functools.cached_property
    def jobs(self) -> EditorJobs:
        """Made on first use (a job, a lens after the first analysis): not before the first diagnostics."""
        from allo_lsp.session.editor import EditorJobs

        return EditorJobs(trace_values=self.store.trace_values)

    def shutdown(self) -> None:
        if self.workspace_files is not None:
            self.workspace_files.close()  # its background process
        super().shutdown()

    # -- analysis ---------------------------------------------------------------------------

    def options(self) -> Options:
        build = (self.settings.allo_build == "auto" and self.probe.found) or self.settings.allo_build
        return Options(allo_build=build, omp_threads=self.settings.omp_threads)

    async def document_options(self, uri: str) -> Options:
        """The options of one document: the settings and its project's [tool.allo-lsp] (whose
        allo-build counts when the setting is `auto`, read off the event loop)."""
        path = self.document(uri).path if uri.startswith("file:") else None
        folders, chosen = [f.uri for f in self.workspace.folders.values()], self.settings.allo_build != "auto"
        return await asyncio.to_thread(self.configs.options, path, self.options(), chosen, folders)

    def publish_config_problems(self) -> None:
        """The problems of the project configurations read since last time, on each pyproject.toml."""
        for found in self.configs.unreported():
            diagnostics = self.converter(found.path.as_uri(), found.text).diagnostics(found.problems)
            self.text_document_publish_diagnostics(convert.published(found.path.as_uri(), diagnostics))

    async def analyse(self, uri: str) -> None:
        """Analyse the document as it is now, and keep and show the result if it is still current;
        or a workspace file that is not open, from disk."""
        if not self.is_open(uri):
            if self.workspace_files is not None and self.workspace_files.knows(uri):
                options = await self.document_options(uri)
                self.publish_config_problems()
                await self.workspace_files.analyse(uri, options)
            return
        doc, started = self.workspace.get_text_document(uri), time.monotonic()
        text, version = lsp_newlines(doc.source), doc.version
        previous, options = self.store.analyses.get(uri), await self.document_options(uri)
        self.publish_config_problems()
        if previous is None:  # its first analysis: the problems kept from an earlier server's, at once
            await self._show_kept(uri, text, version, options)
        result = await asyncio.to_thread(host.tuned(DocumentAnalysis.build), text, version, options, previous)
        took = f"{uri} v{version}: analysed in {(time.monotonic() - started) * 1000:.1f} ms"
        self.log(LogLine(DEBUG, f"{took}, from {started:.4f} s"))  # a benchmark reads it: one at a time
        if uri not in self.open_uris() or self.workspace.get_text_document(uri).version != version:
            return  # superseded: the queue analyses the newer text next
        self.store.keep(uri, result)
        self.publish(uri, result)
        if previous is None:
            await asyncio.to_thread(self.problem_cache.put, text, options, result.problems)

    async def _show_kept(self, uri: str, text: str, version: int | None, options: Options) -> None:
        kept = await asyncio.to_thread(self.problem_cache.get, text, options)
        if kept is None or uri not in self.open_uris() or self.workspace.get_text_document(uri).version != version:
            return
        self.store.kept_problems[uri] = (version, kept)
        await self.queue.news()  # a pull waiting for the analysis takes them
        if self.pulls:
            asyncio.ensure_future(self.diagnostics_refresh.ask(unless=lambda: self.queue.waits_for(uri)))
        else:
            diagnostics = self.converter(uri, text).diagnostics(kept)
            self.text_document_publish_diagnostics(convert.published(uri, diagnostics, version))

    def is_analysed(self, uri: str) -> bool:
        """Analysed, or its first analysis to come: a document that is not analysed at all (an
        MLIR view) is neither."""
        return uri in self.store.analyses or self.queue.is_pending(uri)

    async def first_analysis(self, uri: str) -> None:
        """Wait (bounded) for the first analysis of a document still to be analysed. Its kept
        problems (`session/problem_cache.py`) may have been shown already: a client that waited
        for them asks before the analysis is done."""

        def analysed_or_dropped() -> bool:
            return uri in self.store.analyses or not self.is_analysed(uri)

        await self.queue.until(analysed_or_dropped, FIRST_ANALYSIS_WAIT_S, key=uri)

    def forget(self, uri: str) -> None:
        """A closed document: its analysis, to come or done, what the store kept of it, and its
        editor's job state (made only once a job ran)."""
        self.queue.forget(uri)
        self.store.forget(uri)
        if "jobs" in self.__dict__:
            self.jobs.forget(uri)

    def schedule_open(self) -> None:
        """Every open document analysed again (new settings, a project's configuration, the probe)."""
        for uri in self.open_uris():
            self.queue.request(uri)

    def _failed(self, uri: str, exc: BaseException) -> None:
        log.error("analysis of %s failed", uri, exc_info=exc)
        self.log(LogLine(ERROR, f"analysis of {uri} failed: {exc!r}"))

    def log(self, *lines: LogLine) -> None:
        """`window/logMessage` of each line `alloDataflow.logLevel` shows."""
        for line in (line for line in lines if shown(line.level, self.settings.log_level)):
            self.window_log_message(convert.log_message(line.text, line.level))

    def diagnostics(self, uri: str, result: DocumentAnalysis) -> list[lsp.Diagnostic]:
        converter = self.converter(uri, result.text)
        return [converter.diagnostic(p.problem, p.source) for p in self.store.problems(uri, result)]

    def publish(self, uri: str, result: DocumentAnalysis) -> None:
        """Show the document's diagnostics: sent, or (to a client that pulls) ready to be asked for."""
        if self.pulls:  # the pulls waiting for this analysis get it; with none (a job's outcome), asked to pull
            asyncio.ensure_future(self.diagnostics_refresh.ask(unless=lambda: self.queue.waits_for(uri)))
        else:
            diagnostics = self.diagnostics(uri, result)
            self.text_document_publish_diagnostics(convert.published(uri, diagnostics, result.version))
        if self.store.lenses_back(uri):  # the lenses on its edited lines are back
            self.refresh_lenses(uri)

    def republish(self, uri: str) -> None:
        """The document's problems again (a job's outcome changed them), if it is still open."""
        if (result := self.store.analyses.get(uri)) is not None and self.is_open(uri):
            self.publish(uri, result)

    def refresh_lenses(self, uri: str, inlay_hints: bool = False) -> None:
        """The lenses of `uri` change (and its inlay hints: a kernel's active PE): asked again by a
        client that can be told."""
        self.jobs.changed(uri)
        caps = self.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            asyncio.ensure_future(self._ask(self.workspace_code_lens_refresh_async))
        if inlay_hints and caps and caps.inlay_hint and caps.inlay_hint.refresh_support:
            asyncio.ensure_future(self._ask(self.workspace_inlay_hint_refresh_async))

    async def _ask(self, request) -> None:
        try:
            await request(None)
        except Exception as exc:  # noqa: BLE001 - a client that cannot be told asks again on its own
            log.info("%s failed: %r", request.__name__, exc)

    def open_uris(self) -> set[str]:
        """Open documents that are analysed (Python files), by the URI the client wrote
        (`file:///my%20designs/top.py`), under which diagnostics reach the client."""
        return {doc.uri for doc in self.workspace.text_documents.values() if not is_view(doc.uri)}

    def converter(self, uri: str, text: str) -> Converter:
        return Converter(self.workspace.position_codec, lsp_newlines(text).split("\n"))

    def text(self, uri: str) -> str:
        """The document's current text, with LSP's line ends as the analysis reads them."""
        return lsp_newlines(self.document(uri).source)

    def view(self, uri: str) -> tuple[Current, Converter] | None:
        """The document's features on its current text, and a converter on it; None before the
        first analysis."""
        text = self.text(uri)
        current = self.store.current(uri, text)
        return (current, self.converter(uri, text)) if current is not None else None

    def document(self, uri: str) -> TextDocument:
        """The document at `uri`; one the client has not opened is empty (`ClientDocument`)."""
        return self.workspace.get_text_document(uri)

    def is_open(self, uri: str) -> bool:
        return uri in self.workspace.text_documents  # keyed as the client wrote it (ClientWorkspace)

    # -- settings ---------------------------------------------------------------------------

    def apply_settings(self, raw) -> None:
        """The client's `alloDataflow` section, read afresh (a value not given is its default,
        `trusted` among them: false); an answer that cannot be read keeps the settings before.
        `${workspaceFolder}` in a path: the first folder, as VS Code's (else the client's root)."""
        folders = folder_paths([f.uri for f in self.workspace.folders.values()] or [self.workspace.root_uri or ""])
        try:
            settings, warnings = parse_settings(raw, str(folders[0]) if folders else None)
        except Unreadable as exc:
            self.settings_unread(str(exc))
            return
        for warning in warnings:
            self.window_show_message(convert.show_message(f"allo-lsp: {warning}"))
        changed = settings != self.settings
        if settings.python != self.settings.python or settings.allo_build != self.settings.allo_build:
            self.probe = BuildProbe()  # another Allo: probe again when it matters
        if settings.runner_environment() != self.settings.runner_environment() and "jobs" in self.__dict__:
            self.jobs.manager.discard_warm()  # started for another interpreter or environment
        self.settings = settings
        if changed:
            self.schedule_open()
            if self.workspace_files is not None:  # analysed with other options: again when pulled
                self.workspace_files.reports.clear()

    def settings_unread(self, why: str) -> None:
        """The client's settings could not be read: those before stay, workspace trust too."""
        trust = "trusted" if self.settings.trusted else "not trusted: nothing runs"
        text = f"allo-lsp: the editor's settings could not be read ({why}); keeping those before (workspace {trust})"
        self.window_show_message(convert.show_message(text, error=True))

    async def pull_settings(self) -> None:
        result = await self.configuration(SECTION)
        if result is None:
            return  # a client that cannot answer: told by `configuration`
        if not isinstance(result, (list, tuple)) or len(result) != 1:  # pygls gives a tuple
            got = f"{len(result)} values" if isinstance(result, (list, tuple)) else f"a {type(result).__name__}"
            self.settings_unread(f"workspace/configuration answered {got} for one section")
            return
        self.apply_settings(result[0])

    async def configuration(self, *sections: str) -> Sequence | None:
        """The client's values of `sections`; None from a client that cannot answer (we keep what
        we have; the user is told when our settings could not be read)."""
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return None
        request = self.workspace_configuration_async(convert.configuration_request(*sections))
        try:
            # Bounded: an answer that never comes (or that cannot be parsed, so never settles it)
            # would hold the settings, and the wait for them, for good.
            return await asyncio.wait_for(request, CONFIGURATION_WAIT_S)
        except Exception as exc:  # noqa: BLE001 - a client that cannot answer
            log.warning("workspace/configuration failed: %r", exc)
            if SECTION in sections:
                why = f"not answered within {CONFIGURATION_WAIT_S:g} s" if isinstance(exc, TimeoutError) else repr(exc)
                self.settings_unread(f"workspace/configuration failed: {bounded(why, 300)}")
            return None
