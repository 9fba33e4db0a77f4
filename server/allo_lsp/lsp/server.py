"""`allo-lsp serve`: the language server's state, documents and analysis (handlers: `features.py`,
`jobs.py`).

Analysis runs off the event loop (`asyncio.to_thread`), debounced per document; a result is
published only if the document is still at the version that was analysed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from threading import Event

from lsprotocol import types as lsp
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from allo_lsp import __version__
from allo_lsp.analysis import Options, ParseCache, lsp_newlines
from allo_lsp.ide.document import DocumentAnalysis
from allo_lsp.ide.job_outcomes import JobOutcomes
from allo_lsp.ide.log_lines import ERROR, LogLine, shown
from allo_lsp.ide.mlir_view import is_view
from allo_lsp.jobs.build_probe import BuildProbe
from allo_lsp.jobs.editor import EditorJobs
from allo_lsp.jsonrpc.frames import serve
from allo_lsp.jsonrpc.protocol import Protocol, dispatch
from allo_lsp.lsp import convert
from allo_lsp.lsp.convert import Converter
from allo_lsp.lsp.settings import SECTION, Settings, parse_settings

log = logging.getLogger(__name__)
_CACHED_DOCUMENTS = 4  # the documents whose parse cache is kept (those edited most recently)


class AlloLanguageServer(LanguageServer):
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
        self._pending: dict[str, asyncio.Task] = {}
        self.job_outcomes: dict[str, JobOutcomes] = {}  # what each open document shows of its jobs
        self.lenses_to_refresh: set[str] = set()  # documents whose last lenses left one out (an edited line)
        self.mlir_views: dict[str, object] = {}  # allo-mlir: URI -> ide.mlir_view.MlirView
        self.probe = BuildProbe()  # what the probe found the configured Allo does
        self.jobs = EditorJobs()
        self.input_error: str | None = None  # why the client's input could not be read (`jsonrpc.frames`)

    def _start_io_async(self, stdin=None, stdout=None) -> None:
        """pygls' stdio loop, with frames read and checked by `jsonrpc` instead of `pygls.io_`."""
        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            handle = functools.partial(dispatch, self.protocol)
            self.input_error = asyncio.run(serve(stdin or sys.stdin.buffer, handle, self._stop_event, self.thread_pool))
        except BrokenPipeError:
            log.error("the client has gone: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def exit_status(self) -> int:
        """1 if the client's input could not be framed or `exit` came without `shutdown`."""
        return 1 if self.input_error else self.protocol.exit_status

    # -- analysis ---------------------------------------------------------------------------

    def options(self) -> Options:
        build = (self.settings.allo_build == "auto" and self.probe.found) or self.settings.allo_build
        return Options(allo_build=build, omp_threads=self.settings.omp_threads)

    async def analyse(self, uri: str, delay: float = 0.0) -> None:
        """Analyse the document as it is after `delay` seconds, and publish if still current."""
        if delay:
            await asyncio.sleep(delay)
        doc = self.workspace.get_text_document(uri)
        text, version = lsp_newlines(doc.source), doc.version
        previous = self.analyses.get(uri)
        result = await asyncio.to_thread(DocumentAnalysis.build, text, version, self.options(), previous)
        if uri not in self.open_uris() or self.workspace.get_text_document(uri).version != version:
            return  # superseded: a newer edit has its own analysis scheduled
        self.analyses[uri] = result
        self._keep_cache_for(uri)
        self.publish(uri, result)

    def _keep_cache_for(self, uri: str) -> None:
        """Parse caches (libcst trees: megabytes per file) only for the documents being edited."""
        self._recent = [u for u in self._recent if u != uri and u in self.analyses][: _CACHED_DOCUMENTS - 1]
        for old in [u for u in self.analyses if u != uri and u not in self._recent]:
            self.analyses[old].cache = ParseCache()
        self._recent.insert(0, uri)

    def is_analysed(self, uri: str) -> bool:
        """Analysed, or its first analysis still running: a document that is not analysed at all
        (an MLIR view) is neither."""
        return uri in self.analyses or uri in self._pending

    def forget(self, uri: str) -> None:
        """A closed document: its analysis, pending or done, and its jobs' outcomes (for the
        text its jobs ran: gone with the document)."""
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self.analyses.pop(uri, None)
        self.job_outcomes.pop(uri, None)

    def schedule(self, uri: str, delay: float) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        task = asyncio.ensure_future(self.analyse(uri, delay))
        self._pending[uri] = task
        task.add_done_callback(lambda t: self._finished(uri, t))

    def _finished(self, uri: str, task: asyncio.Task) -> None:
        if self._pending.get(uri) is task:
            del self._pending[uri]
        if not task.cancelled() and task.exception() is not None:
            log.error("analysis of %s failed", uri, exc_info=task.exception())
            self.log(LogLine(ERROR, f"analysis of {uri} failed: {task.exception()!r}"))

    def log(self, *lines: LogLine) -> None:
        """`window/logMessage` of each line `alloDataflow.logLevel` shows."""
        for line in (line for line in lines if shown(line.level, self.settings.log_level)):
            self.window_log_message(convert.log_message(line.text, line.level))

    def outcomes_of(self, uri: str) -> JobOutcomes:
        return self.job_outcomes.setdefault(uri, JobOutcomes())

    def publish(self, uri: str, result: DocumentAnalysis) -> None:
        """The analysis' problems and those of the jobs whose outcomes hold on its text."""
        converter = self.converter(uri, result.text)
        diagnostics = [converter.diagnostic(p) for p in result.problems]
        diagnostics += [converter.diagnostic(p.problem, p.source) for p in self.outcomes_of(uri).problems(result.text)]
        self.text_document_publish_diagnostics(convert.published(uri, diagnostics, result.version))
        if uri in self.lenses_to_refresh:  # the lenses on its edited lines are back
            self.lenses_to_refresh.discard(uri)
            self.refresh_lenses(uri)

    def refresh_lenses(self, uri: str) -> None:
        """The lenses of `uri` change: asked again by a client that can be told."""
        self.jobs.changed(uri)
        caps = self.client_capabilities.workspace
        if caps and caps.code_lens and caps.code_lens.refresh_support:
            asyncio.ensure_future(self._refresh_lenses())

    async def _refresh_lenses(self) -> None:
        try:
            await self.workspace_code_lens_refresh_async(None)
        except Exception as exc:  # noqa: BLE001 - a client that cannot refresh asks again on its own
            log.info("codeLens/refresh failed: %r", exc)

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
                self.schedule(uri, 0.0)

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
