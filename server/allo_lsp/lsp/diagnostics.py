"""Diagnostics the client pulls (LSP 3.17): of a document when it asks, of the workspace's other
Allo files in the background. Only for a client that can also be told to pull again (after a
job, new settings): the others are sent them (`server.publish`), never both."""

from __future__ import annotations

from lsprotocol import types as lsp

from allo_lsp.lsp import convert
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.session.workspace_reports import EXCLUDES, WorkspaceReports, excludes_on, folder_paths

_ANALYSIS_WAIT_S = 30.0  # a pull waits this long for the analysis of the current text, then answers the last
_HOLD_S = 20.0  # a workspace pull with nothing new is held this long for news (the client asks again at once)


def pulls(caps: lsp.ClientCapabilities) -> bool:
    text, workspace = caps.text_document, caps.workspace
    return bool(
        text and text.diagnostic and workspace and workspace.diagnostics and workspace.diagnostics.refresh_support
    )


async def on_document_diagnostic(ls: AlloLanguageServer, params: lsp.DocumentDiagnosticParams):
    uri = params.text_document.uri

    def current() -> bool:  # the analysis of the text as it is now, not an older one's problems
        return not ls.is_analysed(uri) or ls.store.is_of(uri, ls.document(uri).version)

    def kept():  # before the first analysis: what an earlier server found on this very text
        found = ls.store.kept_problems.get(uri)
        return found[1] if found is not None and found[0] == ls.document(uri).version else None

    await ls.queue.until(lambda: current() or kept() is not None, _ANALYSIS_WAIT_S, key=uri)
    if not current() and (problems := kept()) is not None:
        return convert.document_report(ls.converter(uri, ls.text(uri)).diagnostics(problems), params.previous_result_id)
    result = ls.store.analyses.get(uri)
    return convert.document_report(ls.diagnostics(uri, result) if result else [], params.previous_result_id)


async def on_workspace_diagnostic(ls: AlloLanguageServer, params: lsp.WorkspaceDiagnosticParams):
    if ls.workspace_files is None:  # a client that cannot answer: only .gitignore and our own rules
        ls.workspace_files = WorkspaceReports(excludes_on(await ls.configuration(*EXCLUDES) or []))
    token = params.partial_result_token

    def report(uri: str, text: str, problems) -> tuple[str, lsp.WorkspaceFullDocumentDiagnosticReport]:
        item = convert.workspace_item(uri, ls.converter(uri, text).diagnostics(problems))
        return item.result_id, item

    def stream(items: list) -> None:
        ls.protocol.notify(lsp.PROGRESS, convert.partial_workspace_report(token, items))

    folders = folder_paths([f.uri for f in ls.workspace.folders.values()])
    known = {p.uri: p.value for p in params.previous_result_ids}  # what the client has
    items = await ls.workspace_files.pull(
        ls.queue, folders, ls.open_uris, known, report, None if token is None else stream, _HOLD_S
    )
    return convert.workspace_report(items)


def register(server: AlloLanguageServer) -> None:
    """Called at `initialize`, when the client pulls: its capabilities are computed after."""
    server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC, convert.DIAGNOSTIC_OPTIONS)(on_document_diagnostic)
    server.feature(lsp.WORKSPACE_DIAGNOSTIC)(on_workspace_diagnostic)
