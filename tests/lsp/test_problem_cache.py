"""A document's problems kept across restarts (issue 29, `session/problem_cache.py`), over stdio: a
server that opens a text an earlier server analysed shows that server's problems at once, then
its own analysis', which are the same; an entry that is not one is set aside; an editor that gives
no storage keeps nothing."""

import asyncio
import json
import sys

from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import client_capabilities
from waiting import notification, until

DESIGN = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
# Long enough that its first analysis ends well after the entry has been read (a second or so).
LONG = DESIGN + "".join(f"\ndef helper_{n}(a, b):\n    return a + b\n" for n in range(4000))


async def _server(storage, editor: str = "neovim"):
    """A server; "visual_studio_code": a client that pulls (vscode-languageclient 9+)."""
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve")
    client.editor = Editor(client, editor)
    caps = client_capabilities(editor)
    if editor == "visual_studio_code":
        caps.text_document.diagnostic = lsp.DiagnosticClientCapabilities(dynamic_registration=True)
        caps.workspace.diagnostics = lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    options = {"workspaceStorage": str(storage)} if storage else None
    await client.initialize_session(lsp.InitializeParams(capabilities=caps, initialization_options=options))
    return client


async def _published(client, uri: str, count: int) -> list[lsp.PublishDiagnosticsParams]:
    await until(
        lambda: len(client.editor.published.get(uri, [])) >= count,
        what=f"{count} publications of {uri}",
        wake=notification(client, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS),
        seen=lambda: client.editor.published.get(uri),
    )
    return client.editor.published[uri]


def _entries(storage) -> list:
    return sorted((storage / "problems").glob("*.json"))


async def test_a_reopened_text_shows_the_problems_kept_then_the_same_from_its_analysis(tmp_path):
    storage, path = tmp_path / "storage", tmp_path / "design.py"
    path.write_text(DESIGN)
    first = await _server(storage)
    try:
        uri = first.editor.open(DESIGN, path=path)
        analysed = await first.editor.diagnostics(uri, 1)
        assert analysed and {d.code for d in analysed} >= {"ADF002"}
    finally:
        await first.shutdown_session()
    (entry,) = _entries(storage)
    # Marked, so that this test can tell what the next server shows from where.
    kept = json.loads(entry.read_text())
    for problem in kept["problems"]:
        problem[6] = "KEPT " + problem[6]
    entry.write_text(json.dumps(kept))
    second = await _server(storage)
    try:
        uri = second.editor.open(DESIGN, path=path)
        shown, then = await _published(second, uri, 2)
        assert shown.version == then.version == 1
        assert [d.message for d in shown.diagnostics] == ["KEPT " + d.message for d in analysed]
        assert [(d.code, d.range, d.message) for d in then.diagnostics] == [
            (d.code, d.range, d.message) for d in analysed
        ]
    finally:
        await second.shutdown_session()


async def test_a_client_that_pulls_is_answered_from_the_entry_before_the_analysis(tmp_path):
    storage, path = tmp_path / "storage", tmp_path / "design.py"
    path.write_text(LONG)
    first = await _server(storage, "visual_studio_code")
    try:
        uri = first.editor.open(LONG, path=path)
        report = await first.text_document_diagnostic_async(
            lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
        )
        analysed = report.items
        assert analysed
    finally:
        await first.shutdown_session()
    (entry,) = _entries(storage)
    kept = json.loads(entry.read_text())
    kept["problems"][0][6] = "KEPT"
    entry.write_text(json.dumps(kept))
    second = await _server(storage, "visual_studio_code")
    try:
        uri = second.editor.open(LONG, path=path)
        pull = lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
        assert (await second.text_document_diagnostic_async(pull)).items[0].message == "KEPT"
        for _ in range(300):  # once analysed, its own (a pull waits for an analysis under way)
            answer = await second.text_document_diagnostic_async(pull)
            if answer.items[0].message != "KEPT":
                break
            await asyncio.sleep(0.1)
        assert [d.message for d in answer.items] == [d.message for d in analysed]
    finally:
        await second.shutdown_session()


async def test_an_entry_that_is_not_one_is_set_aside_and_the_analysis_shown(tmp_path):
    storage, path = tmp_path / "storage", tmp_path / "design.py"
    path.write_text(DESIGN)
    first = await _server(storage)
    try:
        analysed = await first.editor.diagnostics(first.editor.open(DESIGN, path=path), 1)
    finally:
        await first.shutdown_session()
    (entry,) = _entries(storage)
    entry.write_text('{"format": 1, "problems": [["ADF001", 9, -1]]}')
    second = await _server(storage)
    try:
        shown = await second.editor.diagnostics(second.editor.open(DESIGN, path=path), 1)
        assert [d.message for d in shown] == [d.message for d in analysed]
        assert (storage / "problems" / f"{entry.name}.unreadable").exists()
    finally:
        await second.shutdown_session()


async def test_an_editor_that_gives_no_storage_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    client = await _server(None)
    try:
        assert await client.editor.diagnostics(client.editor.open(DESIGN, path=tmp_path / "design.py"), 1)
    finally:
        await client.shutdown_session()
    assert not [p for p in tmp_path.rglob("*.json")]
