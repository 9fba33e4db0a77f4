"""The document features: each handler finds the document's analysis, calls one `ide` function
and converts. Requests are answered from the newest analysis, moved to the current text."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types as lsp

from allo_lsp.analysis import Analysis, lsp_newlines
from allo_lsp.ide.code_actions import code_actions
from allo_lsp.ide.document import (
    DocumentAnalysis,
    LineShift,
    hint_forward,
    position_back,
    range_forward,
    symbol_forward,
)
from allo_lsp.ide.fifo_run import depth_fixes
from allo_lsp.ide.hover import hover
from allo_lsp.ide.inlay_hints import inlay_hints
from allo_lsp.ide.lenses import run_actions
from allo_lsp.ide.mlir_view import definition_in_view, view_symbols
from allo_lsp.ide.navigation import definition, references
from allo_lsp.ide.symbols import document_symbols
from allo_lsp.lsp import convert
from allo_lsp.lsp.server import AlloLanguageServer, is_python
from allo_lsp.lsp.settings import SECTION, parse_settings
from allo_lsp.protocol.messages import LIBRARY_BUG


def initialize(ls: AlloLanguageServer, params: lsp.InitializeParams) -> None:
    ls.count_lines_as_lsp()
    options = params.initialization_options
    if isinstance(options, dict):
        ls.settings, _ = parse_settings(options.get(SECTION, options))


async def initialized(ls: AlloLanguageServer, params: lsp.InitializedParams) -> None:
    try:
        caps = ls.client_capabilities.workspace
        if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
            await ls.client_register_capability_async(
                convert.registration("allo-config", lsp.WORKSPACE_DID_CHANGE_CONFIGURATION))
        await ls.pull_settings()
    finally:
        ls.settings_received.set()


def did_change_configuration(ls: AlloLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
    caps = ls.client_capabilities.workspace
    if caps and caps.configuration:
        asyncio.ensure_future(ls.pull_settings())  # the pushed value may be partial: ask for ours
    elif isinstance(params.settings, dict):
        ls.apply_settings(params.settings.get(SECTION))


def did_open(ls: AlloLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    if is_python(params.text_document.uri) and params.text_document.language_id in ("python", ""):
        ls.schedule(params.text_document.uri, 0.0)


def did_change(ls: AlloLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    # Analysed, or its first analysis still running (which this edit supersedes): a document
    # that is not analysed at all (an MLIR view) is in neither.
    if ls.is_analysed(params.text_document.uri):
        ls.schedule(params.text_document.uri, ls.settings.debounce_ms / 1000)


def did_close(ls: AlloLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(convert.published(params.text_document.uri, []))


@dataclass(frozen=True)
class View:
    """What answers a request on the document's current `text`: the newest analysis, the shift
    from its text to this one (None: the same), and a converter on this one."""

    analysis: Analysis
    shift: LineShift | None
    converter: object  # convert.Converter
    text: str


def view(ls: AlloLanguageServer, uri: str) -> View | None:
    """None before the first analysis."""
    result = ls.analyses.get(uri)
    if result is None:
        return None
    text = lsp_newlines(ls.document(uri).source)
    analysis, _, shift = result.view(text)
    return View(analysis, shift, ls.converter(uri, text), text)


def _at(ls: AlloLanguageServer, uri: str, position: lsp.Position):
    found = view(ls, uri)
    if found is None:
        return None
    pos = position_back(found.shift, found.converter.from_position(position))
    return None if pos is None else (found.analysis, pos, found.converter, found.shift)


def on_hover(ls: AlloLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    found = _at(ls, uri, params.position)
    if found is None:
        return None
    analysis, pos, converter, shift = found
    ran = ls.outcomes_of(uri).outcomes(lsp_newlines(ls.document(uri).source))
    result = hover(analysis, pos, ls.jobs.reports_of(uri), list(ran.values()))
    moved = range_forward(shift, result.range) if result else None
    return converter.hover(type(result)(moved, result.markdown)) if moved is not None else None


def on_definition(ls: AlloLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    mlir = ls.mlir_views.get(params.text_document.uri)
    if mlir is not None:
        return _mlir_definition(ls, mlir, params.position)
    found = _at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    analysis, pos, converter, shift = found
    target = definition(analysis, pos)
    moved = range_forward(shift, target) if target else None
    return converter.location(params.text_document.uri, moved) if moved else None


def _mlir_definition(ls: AlloLanguageServer, mlir, position: lsp.Position) -> lsp.Location | None:
    result = ls.analyses.get(mlir.source_uri)
    if result is None:
        return None
    analysis = result.good()[0] or result.current
    target = definition_in_view(mlir.text, position.line, position.character, analysis, mlir.region)
    if target is None:
        return None
    return ls.converter(mlir.source_uri, result.text).location(mlir.source_uri, target)


def on_references(ls: AlloLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    found = _at(ls, params.text_document.uri, params.position)
    if found is None:
        return []
    analysis, pos, converter, shift = found
    ranges = references(analysis, pos, params.context.include_declaration)
    moved = [m for r in ranges if (m := range_forward(shift, r)) is not None]
    return [converter.location(params.text_document.uri, r) for r in moved]


def on_document_symbol(ls: AlloLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    mlir = ls.mlir_views.get(params.text_document.uri)
    if mlir is not None:
        result = ls.analyses.get(mlir.source_uri)
        if result is None:
            return []
        converter = ls.converter(params.text_document.uri, mlir.text)
        analysis = result.good()[0] or result.current
        return [converter.symbol(s) for s in view_symbols(mlir.text, analysis, mlir.region)]
    found = view(ls, params.text_document.uri)
    if found is None:
        return []
    moved = (symbol_forward(found.shift, s) for s in document_symbols(found.analysis))
    return [found.converter.symbol(s) for s in moved if s is not None]


def on_inlay_hint(ls: AlloLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    found = view(ls, params.text_document.uri)
    if found is None:
        return []
    window = found.converter.from_range(params.range)
    hints = inlay_hints(found.analysis, reports=ls.jobs.reports_of(params.text_document.uri))
    moved = (hint_forward(found.shift, h) for h in hints)
    return [found.converter.inlay_hint(h) for h in moved if h is not None and window.contains(h.position)]


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
    converter = ls.converter(uri, text)
    where = converter.from_range(params.range)
    # Off the event loop: a fix parses the whole file (the first time for this text).
    actions = await asyncio.to_thread(code_actions, text, result.current, where)
    actions += depth_fixes(text, list(ls.outcomes_of(uri).outcomes(text).values()), where)
    out = [converter.code_action(uri, version, a, params.context.diagnostics) for a in actions]
    out += _reproducer_actions(ls, uri, params.context.diagnostics)
    # The jobs of the lenses, for editors without code lenses (the lightbulb, a context menu).
    out += [convert.command_action(title, command, [uri, name])
            for title, command, name in run_actions(result.current, where.start.line)]
    return out


def _reproducer_actions(ls: AlloLanguageServer, uri: str, diagnostics: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    """"Write a minimal reproducer" on a library-bug diagnostic: a new file next to the design."""
    found = ls.jobs.reproducers.get(uri)
    bug = [d for d in diagnostics if d.code == LIBRARY_BUG]
    if found is None or not bug:
        return []
    target, script = found
    path = Path(ls.document(uri).path)
    name = f"{path.stem}_{target}_repro.py"
    title = f"Write a minimal reproducer of this Allo bug to {name}"
    return [convert.new_file_action(title, path.with_name(name).as_uri(), script, bug)]


FEATURES = [
    (lsp.INITIALIZE, None, initialize),
    (lsp.INITIALIZED, None, initialized),
    (lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, None, did_change_configuration),
    (lsp.TEXT_DOCUMENT_DID_OPEN, None, did_open),
    (lsp.TEXT_DOCUMENT_DID_CHANGE, None, did_change),
    (lsp.TEXT_DOCUMENT_DID_CLOSE, None, did_close),
    (lsp.TEXT_DOCUMENT_HOVER, None, on_hover),
    (lsp.TEXT_DOCUMENT_DEFINITION, None, on_definition),
    (lsp.TEXT_DOCUMENT_REFERENCES, None, on_references),
    (lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, on_document_symbol),
    (lsp.TEXT_DOCUMENT_INLAY_HINT, convert.INLAY_HINT_OPTIONS, on_inlay_hint),
    (lsp.TEXT_DOCUMENT_CODE_ACTION, convert.CODE_ACTION_OPTIONS, on_code_action),
]


def register(server: AlloLanguageServer) -> None:
    for method, options, handler in FEATURES:
        server.feature(method, options)(handler)
