"""The document features: each handler finds the document's analysis, calls one `ide` function
and converts. Requests are answered from the newest analysis, moved to the current text."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp

from allo_lsp.analysis import lsp_newlines
from allo_lsp.documents import ClientWorkspace
from allo_lsp.ide.code_actions import code_actions, disable_actions
from allo_lsp.ide.current import Current
from allo_lsp.ide.document import DocumentAnalysis
from allo_lsp.ide.fifo_run import depth_fixes
from allo_lsp.ide.fix_all import fix_all_actions, wanted
from allo_lsp.ide.graph import REGION_GRAPH, document_graph
from allo_lsp.ide.job_outcomes import reproducer_file
from allo_lsp.ide.lenses import run_actions
from allo_lsp.ide.mlir_view import is_view
from allo_lsp.ide.project_config import is_config
from allo_lsp.jsonrpc.encoded import Encoded
from allo_lsp.lsp import convert, diagnostics
from allo_lsp.lsp.convert import Converter
from allo_lsp.lsp.mlir_view import mlir_definition, mlir_symbols
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import LIBRARY_BUG
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from allo_lsp.settings import SECTION, parse_settings


def initialize(ls: AlloLanguageServer, params: lsp.InitializeParams) -> None:
    ClientWorkspace.adopt(ls.workspace)
    if diagnostics.pulls(params.capabilities):
        ls.pulls = True
        diagnostics.register(ls)
    options = params.initialization_options
    # The editor's storage for this workspace (VS Code's `storageUri`): where cluster jobs are kept.
    ls.workspace_storage = options.get(WORKSPACE_STORAGE) if isinstance(options, dict) else None
    if isinstance(options, dict):
        ls.settings, _ = parse_settings(options.get(SECTION, options))


async def initialized(ls: AlloLanguageServer, params: lsp.InitializedParams) -> None:
    try:
        caps, wanted = ls.client_capabilities.workspace, []
        if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
            wanted.append(("allo-config", lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, None))
        if ls.pulls and caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration:
            wanted.append(
                ("allo-files", lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, convert.WATCHED_FILES)
            )  # workspace diagnostics
        if caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration:
            wanted.append(("allo-pyproject", lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, convert.CONFIG_FILES))
        if wanted:
            await ls.client_register_capability_async(convert.registrations(wanted))
        await ls.pull_settings()
    finally:
        ls.settings_received.set()


def did_change_configuration(ls: AlloLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
    caps = ls.client_capabilities.workspace
    if caps and caps.configuration:
        asyncio.ensure_future(ls.pull_settings())  # the pushed value may be partial: ask for ours
    elif isinstance(params.settings, dict):
        ls.apply_settings(params.settings.get(SECTION))


def did_change_watched_files(ls: AlloLanguageServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    """A pyproject.toml changed: the open documents again, under its [tool.allo-lsp]; and the
    workspace's files (`diagnostics.py`)."""
    if any(is_config(c.uri) for c in params.changes):
        for uri in ls.open_uris():
            ls.schedule(uri)
    diagnostics.did_change_watched_files(ls, params)


def did_open(ls: AlloLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    if not is_view(params.text_document.uri) and params.text_document.language_id in ("python", ""):
        ls.schedule(params.text_document.uri)


def did_change(ls: AlloLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    # Analysed, or its first analysis still running (which this edit supersedes): a document
    # that is not analysed at all (an MLIR view) is in neither.
    if ls.is_analysed(params.text_document.uri):
        ls.schedule(params.text_document.uri, ls.settings.debounce_ms / 1000)


def did_close(ls: AlloLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(convert.published(params.text_document.uri, []))


def view(ls: AlloLanguageServer, uri: str) -> tuple[Current, Converter] | None:
    """The document's features on its current text, and a converter on it; None before the
    first analysis."""
    result = ls.analyses.get(uri)
    if result is None:
        return None
    text = lsp_newlines(ls.document(uri).source)
    return Current.of(result, text), ls.converter(uri, text)


def on_hover(ls: AlloLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    if (found := view(ls, uri)) is None:
        return None
    current, converter = found
    outcomes = list(ls.outcomes_of(uri).outcomes(current.text).values())
    result = current.hover(converter.from_position(params.position), ls.jobs.reports_of(uri), outcomes)
    return converter.hover(result) if result is not None else None


def on_definition(ls: AlloLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    uri = params.text_document.uri
    if (mlir := ls.mlir_views.get(uri)) is not None:
        return mlir_definition(ls, mlir, params.position)
    if (found := view(ls, uri)) is None:
        return None
    target = found[0].definition(found[1].from_position(params.position))
    return found[1].location(uri, target) if target is not None else None


def on_references(ls: AlloLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    uri = params.text_document.uri
    if (found := view(ls, uri)) is None:
        return []
    ranges = found[0].references(found[1].from_position(params.position), params.context.include_declaration)
    return [found[1].location(uri, r) for r in ranges]


def on_document_symbol(ls: AlloLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    if (mlir := ls.mlir_views.get(params.text_document.uri)) is not None:
        return mlir_symbols(ls, mlir, params.text_document.uri)
    if (found := view(ls, params.text_document.uri)) is None:
        return []
    return [found[1].symbol(s) for s in found[0].symbols()]


def on_inlay_hint(ls: AlloLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    if (found := view(ls, params.text_document.uri)) is None:
        return []
    hints = found[0].inlay_hints(found[1].from_range(params.range), ls.jobs.reports_of(params.text_document.uri))
    return [found[1].inlay_hint(h) for h in hints]


async def on_code_action(ls: AlloLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri = params.text_document.uri
    if not ls.is_open(uri):
        return []  # nothing to fix in a file the editor does not show (and its text is not ours)
    doc = ls.document(uri)
    text, version = lsp_newlines(doc.source), doc.version
    result, options, only = ls.analyses.get(uri), ls.document_options(uri), params.context.only
    # Edits must be computed on exactly the text the client has: re-analyse if it moved on.
    if result is None or result.text != text:
        result = await asyncio.to_thread(DocumentAnalysis.build, text, version, options, result)
    converter = ls.converter(uri, text)
    where = converter.from_range(params.range)

    def fixes():  # off the event loop: a fix parses the whole file, fix-all analyses it again
        analysis, quick = result.current, wanted("quickfix", only)  # no quick fix on save (only: source.fixAll)
        found = code_actions(text, analysis, where) + disable_actions(text, analysis, where) if quick else []
        return found + fix_all_actions(text, options, analysis, only, result.cache)

    actions = await asyncio.to_thread(fixes)
    actions += depth_fixes(text, list(ls.outcomes_of(uri).outcomes(text).values()), where)
    out = [converter.code_action(uri, version, a, params.context.diagnostics) for a in actions]
    out += _reproducer_actions(ls, uri, params.context.diagnostics)
    # The jobs of the lenses, for editors without code lenses (the lightbulb, a context menu).
    out += [
        convert.command_action(title, command, [uri, name])
        for title, command, name in run_actions(result.current, where.start.line)
    ]
    return [a for a in out if wanted(a.kind, only)]  # on save, `only` is source.fixAll


def on_region_graph(ls: AlloLanguageServer, params) -> Encoded | None:
    """`allo/regionGraph` `{textDocument: {uri}, region?, expand?}`: the region's dataflow graph (ide/graph.py)."""
    uri = getattr(getattr(params, "textDocument", None), "uri", None)
    if uri is None or (result := ls.analyses.get(uri)) is None:
        return None
    text = lsp_newlines(ls.document(uri).source)
    outcomes = list(ls.outcomes_of(uri).outcomes(text).values())
    region, expand = getattr(params, "region", None), getattr(params, "expand", False) is True
    graph = document_graph(result, text, region, expand, outcomes, ls.jobs.reports_of(uri))
    # Encoded here: pygls' cattrs walk of a 256-PE graph's JSON took 70 ms, json.dumps 3 ms.
    return Encoded(ls.converter(uri, text).region_graph(graph)) if graph is not None else None


def _reproducer_actions(ls: AlloLanguageServer, uri: str, diagnostics: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    """The "Write a minimal reproducer" action on a library-bug diagnostic: a new file next to the design."""
    found, bug = ls.jobs.reproducers.get(uri), [d for d in diagnostics if d.code == LIBRARY_BUG]
    if found is None or not bug:
        return []
    title, path = reproducer_file(ls.document(uri).path, found[0])
    return [convert.new_file_action(title, Path(path).as_uri(), found[1], bug)]


FEATURES = [
    (lsp.INITIALIZE, None, initialize),
    (lsp.INITIALIZED, None, initialized),
    (lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, None, did_change_configuration),
    (lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, None, did_change_watched_files),
    (lsp.TEXT_DOCUMENT_DID_OPEN, None, did_open),
    (lsp.TEXT_DOCUMENT_DID_CHANGE, None, did_change),
    (lsp.TEXT_DOCUMENT_DID_CLOSE, None, did_close),
    (lsp.TEXT_DOCUMENT_HOVER, None, on_hover),
    (lsp.TEXT_DOCUMENT_DEFINITION, None, on_definition),
    (lsp.TEXT_DOCUMENT_REFERENCES, None, on_references),
    (lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, on_document_symbol),
    (lsp.TEXT_DOCUMENT_INLAY_HINT, convert.INLAY_HINT_OPTIONS, on_inlay_hint),
    (lsp.TEXT_DOCUMENT_CODE_ACTION, convert.CODE_ACTION_OPTIONS, on_code_action),
    (REGION_GRAPH, None, on_region_graph),
]


def register(server: AlloLanguageServer) -> None:
    for method, options, handler in FEATURES:
        server.feature(method, options)(handler)
