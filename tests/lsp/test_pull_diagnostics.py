"""Pulled diagnostics (LSP 3.17) over stdio, as VS Code's client asks for them: a document's after
each change, with `resultId` so that an unchanged document answers "unchanged", and the
workspace's other Allo files in the background. A client that cannot be told to pull again gets
them pushed (the rest of tests/lsp), never both."""

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest
import pytest_lsp
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from waiting import file_poll, until

BARE_SCALAR = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
CLEAN = (EXAMPLES / "producer_consumer.py").read_text()


def pull_capabilities() -> lsp.ClientCapabilities:
    """VS Code's, with what vscode-languageclient 9+ adds: pull diagnostics and their refresh."""
    caps = client_capabilities("visual_studio_code")
    caps.text_document.diagnostic = lsp.DiagnosticClientCapabilities(dynamic_registration=True)
    caps.workspace.diagnostics = lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client)
)
async def puller(lsp_client: LanguageClient, tmp_path):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration({"logLevel": "debug"}, section="alloDataflow")
    lsp_client.set_configuration({"**/generated": True}, section="files.exclude")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    folder = lsp.WorkspaceFolder(uri=workspace.as_uri(), name="workspace")
    lsp_client.init_result = await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=pull_capabilities(), workspace_folders=[folder])
    )
    lsp_client.workspace_dir = workspace
    yield
    await lsp_client.shutdown_session()


def pull(client, uri: str, previous: str | None = None):
    return client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri), previous_result_id=previous)
    )


def codes(report) -> list[str]:
    return sorted(d.code for d in report.items)


async def test_a_document_is_pulled_with_result_ids_and_never_pushed(puller):
    client, editor = puller, puller.editor
    provider = client.init_result.capabilities.diagnostic_provider
    assert provider is not None and provider.workspace_diagnostics and not provider.inter_file_dependencies
    uri = editor.open(BARE_SCALAR, "pull.py")
    first = await pull(client, uri)
    assert first.kind == "full" and "ADF002" in codes(first) and first.result_id
    again = await pull(client, uri, first.result_id)
    assert again.kind == "unchanged" and again.result_id == first.result_id
    editor.type_at(uri, 0, 0, "# a comment that changes no diagnostic's range\n")
    moved = await pull(client, uri, first.result_id)
    assert moved.kind == "full" and "ADF002" in codes(moved)  # its range moved a line: a new report
    editor.replace_all(uri, CLEAN)
    fixed = await pull(client, uri, moved.result_id)
    assert fixed.kind == "full" and "ADF002" not in codes(fixed)
    assert editor.published.get(uri) is None  # pulled, so never also pushed (the editor would show both)


async def test_a_burst_of_edits_is_analysed_on_its_newest_text_one_analysis_at_a_time(puller):
    client, editor = puller, puller.editor
    # Long enough that keystrokes arrive while it is analysed (tens of milliseconds).
    uri = editor.open(CLEAN + "".join(f"\ndef helper_{n}(a, b):\n    return a + b\n" for n in range(3000)), "burst.py")
    await pull(client, uri)
    pulls = []
    for _ in range(30):  # each keystroke followed by the client's pull, as vscode-languageclient does
        editor.type_at(uri, 0, 0, "x")
        pulls.append(asyncio.ensure_future(pull(client, uri)))
    editor.replace_all(uri, BARE_SCALAR)  # the newest text, with a problem the others lack
    last = await pull(client, uri)
    assert "ADF002" in codes(last)
    await asyncio.gather(*pulls)
    analysed = [m.message for m in client.log_messages if f"{uri} v" in m.message and "analysed in" in m.message]
    assert 2 <= len(analysed) < 31, analysed  # coalesced: fewer analyses than edits
    spans = sorted(_span(m) for m in analysed)
    assert all(a_end <= b_start + 1e-3 for (_, a_end), (b_start, _) in zip(spans, spans[1:])), spans


def _span(message: str) -> tuple[float, float]:
    """(start, end) in seconds of one analysis, from its debug log line."""
    took_ms = float(message.split("analysed in ")[1].split(" ms")[0])
    start = float(message.split("from ")[1].split(" s")[0])
    return start, start + took_ms / 1000


async def test_diagnostics_that_change_without_an_edit_make_the_server_ask_for_a_pull(puller):
    """New settings re-analyse the documents (as a job's outcome adds its problems): no pull is
    waiting, so the server asks the client to pull again."""
    client, editor = puller, puller.editor
    uri = editor.open(BARE_SCALAR, "refresh.py")
    await pull(client, uri)
    before = client.diagnostic_refresh_count
    client.set_configuration({"logLevel": "debug", "alloBuild": "legacy"}, section="alloDataflow")
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
    await until(lambda: client.diagnostic_refresh_count > before, what="a diagnostic refresh request", wake=file_poll)


async def test_the_workspace_files_are_reported_honouring_gitignore_and_excludes(puller):
    client, folder = puller, puller.workspace_dir
    (folder / "bad.py").write_text(BARE_SCALAR)
    (folder / "good.py").write_text(CLEAN)
    (folder / "notes.py").write_text("print('not a design')\n")
    (folder / "ignored").mkdir()
    (folder / "ignored" / "bad.py").write_text(BARE_SCALAR)
    (folder / ".gitignore").write_text("ignored/\n")
    (folder / "generated").mkdir()
    (folder / "generated" / "bad.py").write_text(BARE_SCALAR)  # files.exclude
    report = await asyncio.wait_for(
        client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=[])), 60
    )
    by_uri = {item.uri: item for item in report.items}
    assert set(by_uri) == {(folder / "bad.py").as_uri(), (folder / "good.py").as_uri()}
    assert "ADF002" in codes(by_uri[(folder / "bad.py").as_uri()])
    assert codes(by_uri[(folder / "good.py").as_uri()]) == []
    # Asked again with what it has, the client is answered when something changes on disk.
    previous = [lsp.PreviousResultId(uri=u, value=i.result_id) for u, i in by_uri.items()]
    held = asyncio.ensure_future(
        client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=previous))
    )
    await asyncio.sleep(0.5)  # not waiting for an event: the point is that none comes while nothing changed
    assert not held.done()
    (folder / "good.py").write_text(BARE_SCALAR)
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams([lsp.FileEvent((folder / "good.py").as_uri(), lsp.FileChangeType.Changed)])
    )
    changed = await asyncio.wait_for(held, 30)
    assert [item.uri for item in changed.items] == [(folder / "good.py").as_uri()]
    assert "ADF002" in codes(changed.items[0])


async def test_a_change_while_a_refresh_is_on_its_way_is_refreshed_too(puller):
    """The client pulls when it answers a refresh: a change after that pull started (here: the
    second of two settings changes) must be asked for again, not folded into the first."""
    client, editor = puller, puller.editor
    uri = editor.open(BARE_SCALAR, "refresh_twice.py")
    await pull(client, uri)
    client.refresh_delay = 1.0  # a refresh in flight for a second
    before = client.diagnostic_refresh_count
    for build in ("legacy", "fixed"):
        client.set_configuration({"logLevel": "debug", "alloBuild": build}, section="alloDataflow")
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
        await until(lambda n=before: client.diagnostic_refresh_count > n, what="a refresh", wake=file_poll)
        before = client.diagnostic_refresh_count
    answered = lambda: client.refreshes_answered == client.diagnostic_refresh_count  # noqa: E731
    await until(answered, what="every refresh answered", wake=file_poll)


@pytest.mark.parametrize("name", ["visual_studio_code", "neovim"])
def test_pull_needs_both_the_request_and_its_refresh(name):
    from allo_lsp.lsp.diagnostics import pulls

    assert pulls(pull_capabilities())
    assert not pulls(client_capabilities(name))  # pytest-lsp's records: no refresh support


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
async def test_the_background_analysis_process_dies_with_a_killed_server(tmp_path):
    """The workspace's files are analysed in a process of the server's own: a server killed by
    SIGKILL (which runs no clean-up) takes it along."""
    (tmp_path / "bad.py").write_text(BARE_SCALAR)
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve")
    try:
        folder = lsp.WorkspaceFolder(uri=tmp_path.as_uri(), name="w")
        await client.initialize_session(
            lsp.InitializeParams(capabilities=pull_capabilities(), workspace_folders=[folder])
        )
        params = lsp.WorkspaceDiagnosticParams(previous_result_ids=[])
        report = await asyncio.wait_for(client.workspace_diagnostic_async(params), 60)
        assert [item.uri for item in report.items] == [(tmp_path / "bad.py").as_uri()]
        server = client._server.pid
        background = [pid for pid in _children(server) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert background, "the analysis ran in a process of its own"
        os.kill(server, signal.SIGKILL)
        await until(
            lambda: not any(_alive(pid) for pid in background), what="the background process gone", wake=file_poll
        )
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), 5)
