"""`allo-lsp serve`: the language server.

Each handler is a few lines: find the document's analysis, call the `ide` feature, convert.
Analysis runs off the event loop (`asyncio.to_thread`), debounced per document; a result is
published only if the document is still at the version that was analysed.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from pathlib import Path
from threading import Event
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument, Workspace

from allo_lsp import __version__
from allo_lsp.analysis import Options, ParseCache, lsp_newlines
from allo_lsp.ide.code_actions import code_actions
from allo_lsp.ide.document import DocumentAnalysis, position_back, range_forward
from allo_lsp.ide.fifo_run import depth_fixes, stream_hover_markdown
from allo_lsp.ide.hover import hover
from allo_lsp.ide.inlay_hints import inlay_hints
from allo_lsp.ide.synthesis import kernel_hint
from allo_lsp.ide.synthesis import kernel_markdown as kernel_synthesis_markdown
from allo_lsp.ide.types import InlayHint
from allo_lsp.ide.lenses import run_actions
from allo_lsp.ide.mlir_view import definition_in_view, view_symbols
from allo_lsp.ide.navigation import definition, references
from allo_lsp.ide.symbols import document_symbols
from allo_lsp.lsp.convert import Converter
from allo_lsp.lsp.settings import SECTION, Settings, parse_settings
from allo_lsp.lsp.wire import Protocol, serve

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
        # Diagnostics of the last job per document (source "allo-lsp run"), until an edit or rerun.
        self.job_diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.reproducers: dict[str, tuple[str, str]] = {}  # uri -> (target, script) of a library bug
        self.mlir_views: dict[str, object] = {}  # allo-mlir: URI -> lsp.mlir_view.MlirView
        self.probed_build: str | None = None  # what the probe found the configured Allo does
        # Synthesis runs that produced a report, per (uri, region): the newest two.
        self.synthesis: dict[tuple[str, str], list] = {}
        self.input_error: str | None = None  # why the client's input could not be read (`wire`)

    def _start_io_async(self, stdin=None, stdout=None) -> None:
        """pygls' stdio loop, with frames read and checked by `wire` instead of `pygls.io_`."""
        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            self.input_error = asyncio.run(serve(stdin or sys.stdin.buffer, self.protocol, self._stop_event, self.thread_pool))
        except BrokenPipeError:
            log.error("the client has gone: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def report(self, uri: str, region: str) -> dict | None:
        """The newest synthesis report (JSON) of a region, if any."""
        history = self.synthesis.get((uri, region))
        return history[-1].details.get("report") if history else None

    # -- analysis ---------------------------------------------------------------------------

    def options(self) -> Options:
        build = self.settings.allo_build
        if build == "auto" and self.probed_build in ("fixed", "legacy"):
            build = self.probed_build
        return Options(allo_build=build)

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
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, f"analysis of {uri} failed: {task.exception()!r}"))

    def publish(self, uri: str, result: DocumentAnalysis) -> None:
        convert = self.converter(uri, result.text)
        diagnostics = [convert.diagnostic(p) for p in result.problems]
        diagnostics += self.job_diagnostics.get(uri, [])
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=result.version)
        )

    def forget_finished(self) -> None:
        """pygls keeps the future of every notification it handled in `_request_futures`
        forever (TOOLCHAIN.md): drop the finished ones, or a long session leaks one per edit."""
        futures = self.protocol._request_futures
        for msg_id in [k for k, f in futures.items() if f.done()]:
            futures.pop(msg_id, None)

    def open_uris(self) -> set[str]:
        """Open documents that are analysed (Python files), by the URI the client wrote
        (`file:///my%20designs/top.py`), under which diagnostics reach the client."""
        return {doc.uri for doc in self.workspace.text_documents.values() if is_python(doc.uri)}

    def converter(self, uri: str, text: str) -> Converter:
        return Converter(self.workspace.position_codec, lsp_newlines(text).split("\n"))

    def document(self, uri: str) -> TextDocument:
        """The document at `uri`; one the client has not opened is empty (`_LspLinesDocument`)."""
        return self.workspace.get_text_document(uri)

    def is_open(self, uri: str) -> bool:
        return uri in self.workspace.text_documents  # keyed as the client wrote it (_LspLinesWorkspace)

    # -- settings ---------------------------------------------------------------------------

    def apply_settings(self, raw) -> None:
        settings, warnings = parse_settings(raw, Settings())
        for warning in warnings:
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Warning, f"allo-lsp: {warning}"))
        changed = settings != self.settings
        if settings.python != self.settings.python or settings.allo_build != self.settings.allo_build:
            self.probed_build = None  # another Allo: probe again when it matters
        self.settings = settings
        if changed:
            for uri in self.open_uris():
                self.schedule(uri, 0.0)

    async def pull_settings(self) -> None:
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        try:
            result = await self.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=SECTION)])
            )
        except Exception as exc:  # a client that cannot answer: keep what we have
            log.warning("workspace/configuration failed: %r", exc)
            return
        self.apply_settings(result[0] if result else None)


server = AlloLanguageServer()


_LSP_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


class _LspLinesDocument(TextDocument):
    """A document whose lines end where LSP says (`\\r\\n`, `\\r`, `\\n`). pygls splits them with
    `str.splitlines`, which also breaks at `\\f`, `\\v`, `\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and
    `\\u2029`: after a form feed, an incremental edit landed lines away from the client's."""

    @property
    def lines(self):
        return tuple(_LSP_LINE.findall(self.source))

    @property
    def source(self) -> str:
        # pygls reads a document the client never opened from disk, whole, on the event loop: a
        # request on a FIFO or /dev/stdin hung the server, on /dev/zero it grew to 21 GB. Only
        # the client's text counts; a file it has not opened is empty.
        return self._source or ""

    def _apply_incremental_change(self, change) -> None:
        """The edit applied as VS Code applies it to its own text: a position past the end of a
        line or of the document is clamped to that end, a reversed range is swapped. pygls
        dropped the text or misplaced it there, and the server's text silently left the
        client's."""
        text = self.source
        (start, clamped_start), (end, clamped_end) = (_offset(text, p, self._position_codec)
                                                      for p in (change.range.start, change.range.end))
        if clamped_start or clamped_end or start > end:
            log.warning("%s: the edit at %s is %s: applied as an editor does (clamped to the text, ends in order)",
                        self.uri, _shown(change.range), "reversed" if start > end else "out of range")
        start, end = min(start, end), max(start, end)
        self._source = text[:start] + change.text + text[end:]


_LSP_BREAK = re.compile(r"\r\n|\r|\n")


def _line_span(text: str, line: int) -> tuple[int, int] | None:
    """(start, end before its line break) of LSP line `line`, None past the last line. Split at
    most `line` times: the rest of the text starts at that line (no list of every line start:
    on each keystroke of a 100,000-line file that cost 80 ms)."""
    if line == 0:  # (re.split's maxsplit=0 means no limit)
        parts = [text]
    else:
        parts = text.split("\n", line) if "\r" not in text else _LSP_BREAK.split(text, maxsplit=line)
    if len(parts) <= line:
        return None
    start = len(text) - len(parts[-1])
    following = _LSP_BREAK.search(text, start)
    return start, following.start() if following else len(text)


def _offset(text: str, position: lsp.Position, codec) -> tuple[int, bool]:
    """(offset in `text` of an LSP position, whether it had to be clamped)."""
    span = _line_span(text, position.line)
    if span is None:
        return len(text), True
    begin, stop = span
    content = text[begin:stop]
    if content.isascii() or codec.encoding == lsp.PositionEncodingKind.Utf32:
        return begin + min(position.character, len(content)), position.character > len(content)
    units = 0
    for column, char in enumerate(content):
        if units >= position.character:  # inside a surrogate pair: after it, as pygls does
            return begin + column, False
        units += codec.client_num_units(char)
    return stop, units < position.character


def _shown(r: lsp.Range) -> str:
    return f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character}"


class _LspLinesWorkspace(Workspace):
    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None) -> TextDocument:
        return _LspLinesDocument(doc_uri, source=source, version=version, language_id=language_id,
                                 sync_kind=self._sync_kind, position_codec=self._position_codec)

    # pygls keys documents by the unquoted URI: `c%20d.py` (a file named `c d.py`) and
    # `c%2520d.py` (one named `c%20d.py`) or `c d.py`, each a document of its own for the client,
    # were one here. Keyed by the URI as the client wrote it.
    def get_text_document(self, doc_uri: str) -> TextDocument:
        return self._text_documents.get(doc_uri) or self._create_text_document(doc_uri)

    def put_text_document(self, text_document: lsp.TextDocumentItem, notebook_uri: str | None = None) -> None:
        self._text_documents[text_document.uri] = self._create_text_document(
            text_document.uri, source=text_document.text, version=text_document.version,
            language_id=text_document.language_id,
        )
        if notebook_uri:
            self._cell_in_notebook[unquote(text_document.uri)] = unquote(notebook_uri)

    def remove_text_document(self, doc_uri: str) -> None:
        self._text_documents.pop(doc_uri, None)
        self._cell_in_notebook.pop(unquote(doc_uri), None)

    def update_text_document(self, text_doc: lsp.VersionedTextDocumentIdentifier, change) -> None:
        document = self._text_documents.get(text_doc.uri)
        if document is None:  # pygls raised, and showed the user "Error in server" for the client's slip
            log.warning("%s: an edit of a document that is not open: ignored", text_doc.uri)
            return
        document.apply_change(change)
        document.version = text_doc.version


@server.feature(lsp.INITIALIZE)
def initialize(ls: AlloLanguageServer, params: lsp.InitializeParams) -> None:
    # pygls made the workspace just before this handler: its documents must count lines as LSP does.
    if type(ls.workspace) is Workspace:
        ls.workspace.__class__ = _LspLinesWorkspace
    options = params.initialization_options
    if isinstance(options, dict):
        ls.settings, _ = parse_settings(options.get(SECTION, options))


@server.feature(lsp.INITIALIZED)
async def initialized(ls: AlloLanguageServer, params: lsp.InitializedParams) -> None:
    try:
        caps = ls.client_capabilities.workspace
        if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
            await ls.client_register_capability_async(
                lsp.RegistrationParams(
                    registrations=[lsp.Registration(id="allo-config", method=lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)]
                )
            )
        await ls.pull_settings()
    finally:
        ls.settings_received.set()


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
def did_change_configuration(ls: AlloLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
    caps = ls.client_capabilities.workspace
    if caps and caps.configuration:
        asyncio.ensure_future(ls.pull_settings())  # the pushed value may be partial: ask for ours
    elif isinstance(params.settings, dict):
        ls.apply_settings(params.settings.get(SECTION))


def is_python(uri: str) -> bool:
    """Only Python files are analysed (an MLIR view, say, is opened too but is not one)."""
    return not uri.startswith("allo-mlir:")


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AlloLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    if is_python(params.text_document.uri) and params.text_document.language_id in ("python", ""):
        ls.schedule(params.text_document.uri, 0.0)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AlloLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    ls.forget_finished()
    ls.job_diagnostics.pop(params.text_document.uri, None)
    # Analysed, or its first analysis still running (which this edit supersedes): a document
    # that is not analysed at all (an MLIR view) is in neither.
    if params.text_document.uri in ls.analyses or params.text_document.uri in ls._pending:
        ls.schedule(params.text_document.uri, ls.settings.debounce_ms / 1000)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AlloLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    pending = ls._pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.analyses.pop(uri, None)
    ls.job_diagnostics.pop(uri, None)  # for the text its job ran: gone with the document
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# -- requests: answered from the newest analysis, moved to the current text ----------------------


def _view(ls: AlloLanguageServer, uri: str):
    """(analysis, converter on the current text, shift) or None before the first analysis."""
    result = ls.analyses.get(uri)
    if result is None:
        return None
    text = lsp_newlines(ls.document(uri).source)
    analysis, _, shift = result.view(text)
    return analysis, ls.converter(uri, text), shift


def _at(ls: AlloLanguageServer, uri: str, position: lsp.Position):
    view = _view(ls, uri)
    if view is None:
        return None
    analysis, convert, shift = view
    pos = position_back(shift, convert.from_position(position))
    return None if pos is None else (analysis, pos, convert, shift)


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def on_hover(ls: AlloLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    found = _at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    analysis, pos, convert, shift = found
    result = hover(analysis, pos)
    moved = range_forward(shift, result.range) if result else None
    if moved is None:
        return None
    markdown = result.markdown
    for region in analysis.model.regions:
        report = ls.report(params.text_document.uri, region.name)
        kernel = next((k for k in region.kernels if k.range == result.range or k.decorator_range == result.range), None)
        if report and kernel:
            markdown += kernel_synthesis_markdown(report, kernel) or ""
    markdown += stream_hover_markdown(analysis.model, result.range, _outcomes(ls, params.text_document.uri)) or ""
    return convert.hover(type(result)(moved, markdown))


def _outcomes(ls: AlloLanguageServer, uri: str) -> list:
    """The last outcome of each job of the document (lsp/jobs.py keeps them)."""
    jobs = getattr(ls, "jobs_state", None)
    return list(jobs.outcomes.get(uri, {}).values()) if jobs is not None else []


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def on_definition(ls: AlloLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    view = ls.mlir_views.get(params.text_document.uri)
    if view is not None:
        return _mlir_definition(ls, view, params.position)
    found = _at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    analysis, pos, convert, shift = found
    target = definition(analysis, pos)
    moved = range_forward(shift, target) if target else None
    return lsp.Location(params.text_document.uri, convert.range(moved)) if moved else None


def _mlir_definition(ls: AlloLanguageServer, view, position: lsp.Position) -> lsp.Location | None:
    result = ls.analyses.get(view.source_uri)
    if result is None:
        return None
    analysis, _ = result.good()
    target = definition_in_view(view.text, position.line, position.character, analysis or result.current, view.region)
    if target is None:
        return None
    return lsp.Location(view.source_uri, ls.converter(view.source_uri, result.text).range(target))


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def on_references(ls: AlloLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    found = _at(ls, params.text_document.uri, params.position)
    if found is None:
        return []
    analysis, pos, convert, shift = found
    ranges = references(analysis, pos, params.context.include_declaration)
    moved = [m for r in ranges if (m := range_forward(shift, r)) is not None]
    return [lsp.Location(params.text_document.uri, convert.range(r)) for r in moved]


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def on_document_symbol(ls: AlloLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    mlir = ls.mlir_views.get(params.text_document.uri)
    if mlir is not None:
        result = ls.analyses.get(mlir.source_uri)
        if result is None:
            return []
        convert = ls.converter(params.text_document.uri, mlir.text)
        analysis = result.good()[0] or result.current
        return [convert.symbol(s) for s in view_symbols(mlir.text, analysis, mlir.region)]
    view = _view(ls, params.text_document.uri)
    if view is None:
        return []
    analysis, convert, shift = view
    out = []
    for symbol in document_symbols(analysis):
        moved = _move_symbol(symbol, shift)
        if moved is not None:
            out.append(convert.symbol(moved))
    return out


def _move_symbol(symbol, shift):
    rng, sel = range_forward(shift, symbol.range), range_forward(shift, symbol.selection)
    if rng is None or sel is None:
        return None
    children = tuple(c for c in (_move_symbol(c, shift) for c in symbol.children) if c is not None)
    return type(symbol)(symbol.name, symbol.kind, symbol.detail, rng, sel, children)


@server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
def on_inlay_hint(ls: AlloLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    view = _view(ls, params.text_document.uri)
    if view is None:
        return []
    analysis, convert, shift = view
    window = convert.from_range(params.range)
    out = []
    hints = inlay_hints(analysis)
    for region in analysis.model.regions:
        report = ls.report(params.text_document.uri, region.name)
        for kernel in region.kernels if report else ():
            label = kernel_hint(report, kernel)
            if label:
                hints.append(InlayHint(kernel.range.end, label, "type", padding_left=True))
    for hint in hints:
        line = hint.position.line if shift is None else shift.forward(hint.position.line)
        if line is not None:
            moved = type(hint)(type(hint.position)(line, hint.position.column), hint.label, hint.kind,
                               hint.padding_left, hint.padding_right)
            if window.contains(moved.position):
                out.append(convert.inlay_hint(moved))
    return out


@server.feature(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Source], resolve_provider=False),
)
async def on_code_action(ls: AlloLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    if not ls.is_open(uri):
        return []  # nothing to fix in a file the editor does not show (and its text is not ours)
    doc = ls.document(uri)
    text, version = lsp_newlines(doc.source), doc.version
    result = ls.analyses.get(uri)
    # Edits must be computed on exactly the text the client has: re-analyse if it moved on.
    if result is None or result.text != text:
        result = await asyncio.to_thread(DocumentAnalysis.build, text, version, ls.options(), result)
    convert = ls.converter(uri, text)
    where = convert.from_range(params.range)
    # Off the event loop: a fix parses the whole file (the first time for this text).
    actions = await asyncio.to_thread(code_actions, text, result.current, where)
    actions += depth_fixes(text, _outcomes(ls, uri), where)
    out = [convert.code_action(uri, version, a, params.context.diagnostics) for a in actions]
    out += _reproducer_actions(ls, uri, params.context.diagnostics)
    # The jobs of the lenses, for editors without code lenses (the lightbulb, a context menu).
    for title, command, name in run_actions(result.current, where.start.line):
        out.append(lsp.CodeAction(title, kind=lsp.CodeActionKind.Source, command=lsp.Command(title=title, command=command, arguments=[uri, name])))
    return out


def _reproducer_actions(ls: AlloLanguageServer, uri: str, diagnostics: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    """"Write a minimal reproducer" on a library-bug diagnostic: a new file next to the design."""
    found = ls.reproducers.get(uri)
    bug = [d for d in diagnostics if d.code == "library_bug"]
    if found is None or not bug:
        return []
    target, script = found
    path = Path(ls.document(uri).path)
    new_uri = path.with_name(f"{path.stem}_{target}_repro.py").as_uri()
    edit = lsp.WorkspaceEdit(
        document_changes=[
            lsp.CreateFile(uri=new_uri, options=lsp.CreateFileOptions(overwrite=True)),
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=new_uri, version=None),
                edits=[lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), new_text=script)],
            ),
        ]
    )
    title = f"Write a minimal reproducer of this Allo bug to {path.stem}_{target}_repro.py"
    return [lsp.CodeAction(title, kind=lsp.CodeActionKind.QuickFix, diagnostics=bug, edit=edit)]
