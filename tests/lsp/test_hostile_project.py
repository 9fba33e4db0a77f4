"""A project's hostile files through the real server over stdio (issue 25, items 5 and 6): a
`pyproject.toml` that is a FIFO, in the workspace folder and above it, is passed over (it was read
on the event loop, and the server answered nothing more); a value of the wrong type in
`[tool.allo-lsp]` is one diagnostic on the `pyproject.toml`, and the design keeps its own."""

import asyncio
import contextlib
import os
import sys

import pytest
import pytest_lsp
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

MAPPING = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # one ADF011
KERNEL = MAPPING.split("\n").index("    def producer(local_A: int32[M]):")


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client)
)
async def folder_client(lsp_client: LanguageClient, tmp_path):
    """VS Code's client with `tmp_path/ws` as its workspace folder."""
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration({"alloBuild": "auto"}, section="alloDataflow")
    (tmp_path / "ws").mkdir()
    folder = lsp.WorkspaceFolder(uri=(tmp_path / "ws").as_uri(), name="ws")
    caps = client_capabilities("visual_studio_code")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=caps, workspace_folders=[folder]))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def folder_editor(folder_client) -> Editor:
    return folder_client.editor


@contextlib.contextmanager
def fifos(*paths):
    """FIFOs at `paths`; at the end each is opened for writing and closed, so that a reader
    blocked on one (the old server) sees its end and the session can close."""
    for path in paths:
        os.mkfifo(path)
    try:
        yield
    finally:
        for path in paths:
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


async def shows_the_design(editor: Editor, uri: str) -> None:
    assert [d.code for d in await editor.diagnostics(uri, timeout=15)] == ["ADF011"]
    hover = await asyncio.wait_for(editor.hover(uri, KERNEL, len("    def pro")), 10)
    assert hover is not None and "producer" in hover


async def test_a_fifo_pyproject_in_the_folder_and_above_it_leaves_the_server_answering(folder_editor, tmp_path):
    with fifos(tmp_path / "ws" / "pyproject.toml", tmp_path / "pyproject.toml"):
        uri = folder_editor.open(MAPPING, path=tmp_path / "ws" / "design.py")
        await shows_the_design(folder_editor, uri)  # no diagnostics, no hover before: the server blocked


async def test_a_fifo_pyproject_above_a_file_outside_the_folders_is_passed_over(editor, tmp_path):
    (tmp_path / "sub").mkdir()
    with fifos(tmp_path / "sub" / "pyproject.toml", tmp_path / "pyproject.toml"):
        uri = editor.open(MAPPING, path=tmp_path / "sub" / "design.py")
        await shows_the_design(editor, uri)


async def test_a_wrong_typed_severity_is_one_diagnostic_on_the_pyproject_and_the_design_keeps_its_own(
    folder_editor, tmp_path
):
    config = tmp_path / "ws" / "pyproject.toml"
    config.write_text('[project]\nname = "demo"\n\n[tool.allo-lsp]\nseverity = { ADF011 = ["error"] }\n')
    uri = folder_editor.open(MAPPING, path=tmp_path / "ws" / "design.py")
    await shows_the_design(folder_editor, uri)  # no diagnostics and no hover before: a TypeError in each analysis

    def published():
        found = folder_editor.published.get(config.as_uri())
        return list(found[-1].diagnostics) if found else None

    (problem,) = await folder_editor.until_published(config.as_uri(), published, what="the configuration's problem")
    assert problem.range.start.line == 4 and "severity of 'ADF011'" in problem.message and "a list" in problem.message
