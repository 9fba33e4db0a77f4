"""The document features: each handler finds the document's analysis, calls one `ide` function
and converts. Requests are answered from the newest analysis, moved to the current text."""

from __future__ import annotations

import asyncio
import os

from lsprotocol import types as lsp

from allo_lsp import host
from allo_lsp.ide.actions import document_actions, reproducer_actions
from allo_lsp.ide.active_pe import ACTIVE_PE
from allo_lsp.ide.fix_all import wanted
from allo_lsp.ide.graph import REGION_GRAPH, document_graph
from allo_lsp.ide.mlir_view import is_view
from allo_lsp.lsp import convert, diagnostics
from allo_lsp.lsp.documents import ClientWorkspace
from allo_lsp.lsp.jsonrpc.encoded import Encoded
from allo_lsp.lsp.jsonrpc.params import BOOLEAN, PE, STRING, fields, nullable, record
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from allo_lsp.session.problem_cache import ProblemCache
from allo_lsp.session.project_config import is_config
from allo_lsp.settings import SECTION


def initialize(ls: AlloLanguageServer, params: lsp.InitializeParams) -> None:
    ClientWorkspace.adopt(ls.workspace)
    if diagnostics.pulls(params.capabilities):
        ls.pulls = True
        diagnostics.register(ls)
    options = params.initialization_options
    # The editor's storage for this workspace (VS Code's `storageUri`): where cluster jobs are kept.
    storage = options.get(WORKSPACE_STORAGE) if isinstance(options, dict) else None
    ls.workspace_storage = storage if isinstance(storage, str) and os.path.isabs(storage) else None
    ls.problem_cache = ProblemCache(ls.workspace_storage)
    if isinstance(options, dict):  # a client's settings without workspace/configuration (trust too: its word)
        ls.apply_settings(options.get(SECTION, options))


async def initialized(ls: AlloLanguageServer, params: lsp.InitializedParams) -> None:
    try:
        caps, wanted = ls.client_capabilities.workspace, []
        if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
            wanted.append(("allo-config", lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, None))
        watches = caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration
        if ls.pulls and watches:  # workspace diagnostics
            wanted.append(("allo-files", lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, convert.WATCHED_FILES))
        if watches:
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
    workspace's files, pulled (`diagnostics.py`), from disk again."""
    if any(is_config(c.uri) for c in params.changes):
        ls.schedule_open()
    if ls.workspace_files is not None:
        ls.workspace_files.watched([(c.uri, c.type == lsp.FileChangeType.Changed) for c in params.changes])
        asyncio.ensure_future(ls.queue.news())


def did_open(ls: AlloLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
    if not is_view(params.text_document.uri) and params.text_document.language_id in ("python", ""):
        ls.queue.request(params.text_document.uri)


def did_change(ls: AlloLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
    # Analysed, or its first analysis still running (which this edit supersedes): a document
    # that is not analysed at all (an MLIR view) is in neither.
    if ls.is_analysed(params.text_document.uri):
        ls.queue.request(params.text_document.uri, ls.settings.debounce_ms / 1000)


def did_close(ls: AlloLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)
    ls.text_document_publish_diagnostics(convert.published(params.text_document.uri, []))


def on_hover(ls: AlloLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
    uri = params.text_document.uri
    if (found := ls.view(uri)) is None:
        return None
    outcomes, active = ls.store.outcomes(uri, found[0].text), ls.store.active_pes(uri, found[0].text)
    result = found[0].hover(found[1].from_position(params.position), ls.jobs.reports_of(uri), outcomes, active)
    return found[1].hover(result) if result is not None else None


def on_definition(ls: AlloLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
    uri, at = params.text_document.uri, params.position
    if (mlir := ls.store.mlir_definition(uri, at.line, at.character)) is not None:
        return ls.converter(mlir[0], mlir[1]).location(mlir[0], mlir[2])
    if (found := ls.view(uri)) is None:
        return None
    target = found[0].definition(found[1].from_position(params.position))
    return found[1].location(uri, target) if target is not None else None


def on_references(ls: AlloLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
    uri = params.text_document.uri
    if (found := ls.view(uri)) is None:
        return []
    ranges = found[0].references(found[1].from_position(params.position), params.context.include_declaration)
    return [found[1].location(uri, r) for r in ranges]


async def on_document_symbol(ls: AlloLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
    if (mlir := ls.store.mlir_symbols(params.text_document.uri)) is not None:
        return [ls.converter(params.text_document.uri, mlir[0]).symbol(s) for s in mlir[1]]
    # VS Code asks for the symbols as soon as it opened the document (after Restart Server too)
    # and keeps an empty answer until the next edit, leaving Outline and breadcrumbs empty.
    await ls.first_analysis(params.text_document.uri)
    if (found := ls.view(params.text_document.uri)) is None:
        return []
    return [found[1].symbol(s) for s in found[0].symbols()]


def on_inlay_hint(ls: AlloLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    if (found := ls.view(params.text_document.uri)) is None:
        return []
    uri = params.text_document.uri
    active = ls.store.active_pes(uri, found[0].text)
    hints = found[0].inlay_hints(found[1].from_range(params.range), ls.jobs.reports_of(uri), active)
    return [found[1].inlay_hint(h) for h in hints]


async def on_code_action(ls: AlloLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    uri, only, diagnostics = params.text_document.uri, params.context.only, params.context.diagnostics
    if not ls.is_open(uri):
        return []  # nothing to fix in a file the editor does not show (and its text is not ours)
    version, text, options = ls.document(uri).version, ls.text(uri), await ls.document_options(uri)
    converter, result = ls.converter(uri, text), ls.store.analyses.get(uri)
    where, outcomes = converter.from_range(params.range), ls.store.outcomes(uri, text)
    found = await asyncio.to_thread(
        host.tuned(document_actions), uri, text, version, result, options, where, only, outcomes
    )
    found += reproducer_actions(ls.document(uri).path, ls.jobs.reproducers.get(uri), {d.code for d in diagnostics})
    return [converter.code_action(uri, version, a, diagnostics) for a in found if wanted(a.kind, only)]


@fields(REGION_GRAPH, textDocument=record(uri=STRING), region=nullable(STRING), expand=nullable(BOOLEAN))
def on_region_graph(ls: AlloLanguageServer, params: dict) -> Encoded | None:
    """`allo/regionGraph` `{textDocument: {uri}, region?, expand?}`: the region's dataflow graph (ide/graph.py)."""
    uri = params["textDocument"]["uri"]
    if (result := ls.store.analyses.get(uri)) is None:
        return None
    text, region, expand = ls.text(uri), params.get("region"), params.get("expand") is True
    graph = document_graph(result, text, region, expand, ls.store.outcomes(uri, text), ls.jobs.reports_of(uri))
    # Encoded here: pygls' cattrs walk of a 256-PE graph's JSON took 70 ms, json.dumps 3 ms.
    return Encoded(ls.converter(uri, text).region_graph(graph)) if graph is not None else None


@fields(
    ACTIVE_PE, textDocument=record(uri=STRING), region=STRING, kernel=STRING, pe=nullable(PE), clear=nullable(BOOLEAN)
)
def on_active_pe(ls: AlloLanguageServer, params: dict) -> Encoded | None:
    """`alloDataflow/activePe`: a kernel's PEs and what the chosen one runs (ide/active_pe.py, README)."""
    uri, clear = params["textDocument"]["uri"], params.get("clear") is True
    text = ls.text(uri)
    before = ls.store.chosen_pes(uri)
    found = ls.store.active_pe(uri, text, params["region"], params["kernel"], params.get("pe"), clear)
    if ls.store.chosen_pes(uri) != before:  # the PE lens's title and the PE's value hints change
        ls.refresh_lenses(uri, inlay_hints=True)
    return Encoded(ls.converter(uri, text).active_pe(found)) if found is not None else None


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
    (ACTIVE_PE, None, on_active_pe),
]


def register(server: AlloLanguageServer) -> None:
    for method, options, handler in FEATURES:
        server.feature(method, options)(handler)
