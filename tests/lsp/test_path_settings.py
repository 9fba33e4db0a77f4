"""`~`, `${userHome}` and `${workspaceFolder}` in `alloDataflow.python` and `llvmBuildDir`, expanded
by the server as it reads its settings (settings.expand_path; issue 28 finding 5): the client
showed a `~/...` interpreter as a working Allo environment while every job failed "does not
exist"."""

import atexit
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest_lsp
from allo_lsp.settings import expand_path, parse_settings
from conftest import JOB_SETTINGS, _job_server_env
from designs import design, fake_llvm_build_dir
from editor import Editor, make_client
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_backend_request import ask
from test_jobs import change_settings

# The cases, as the client's unit test (client/src/test/paths.test.ts) reads them too.
TABLE = json.loads((Path(__file__).parent / "path_settings.json").read_text())
HOME = TABLE["home"]


def test_each_form_is_expanded_and_nothing_else(monkeypatch):
    """`~` alone or before `/` (not `~user`: another user's home is not ours to guess), `${userHome}`,
    `${workspaceFolder}`, surrounding spaces trimmed (as the client trims), nothing else."""
    monkeypatch.setenv("HOME", HOME)
    for written, with_folder, without in TABLE["cases"]:
        assert expand_path(written, TABLE["folder"]) == with_folder, written
        # None open: left as written, so that the job's "does not exist" shows what the user wrote.
        assert expand_path(written, None) == without, written


def test_the_settings_read_hold_the_expanded_paths(monkeypatch):
    monkeypatch.setenv("HOME", HOME)
    raw = {"python": "~/envs/allo/bin/python", "llvmBuildDir": "${workspaceFolder}/llvm"}
    settings, warnings = parse_settings(raw, "/work/design")
    assert (settings.python, settings.llvm_build_dir, warnings) == (
        f"{HOME}/envs/allo/bin/python",
        "/work/design/llvm",
        [],
    )
    assert settings.job_config().python == f"{HOME}/envs/allo/bin/python"


# Over stdio: a home and a workspace folder of the test's, each holding a real Allo environment
# (this test's own venv, linked), the stand-in Allo importable in it (the job tests' PYTHONPATH).
_ROOT = Path(tempfile.mkdtemp(prefix="allo-lsp-test-paths-"))
atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)
FAKE_HOME, WORKSPACE = _ROOT / "home", _ROOT / "workspace"
for where, link in ((FAKE_HOME / "envs", "allo"), (WORKSPACE, ".venv")):
    where.mkdir(parents=True)
    os.symlink(sys.prefix, where / link)
os.symlink(fake_llvm_build_dir(), FAKE_HOME / "llvm")
PYTHON = Path(sys.executable).name  # its name in the venv's bin/
# The job's design writes down the interpreter it was imported in.
WHICH = (
    "\nimport sys as _sys\n"
    "open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'python.txt'), 'w').write(_sys.executable)\n"
)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"],
        client_factory=make_client,
        server_env={**_job_server_env(), "HOME": str(FAKE_HOME)},
    ),
)
async def home_client(lsp_client: LanguageClient):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration(dict(JOB_SETTINGS), section="alloDataflow")
    folder = lsp.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="workspace")
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual_studio_code"),
            root_uri=folder.uri,
            workspace_folders=[folder],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_a_home_interpreter_is_the_one_the_server_answers_and_the_job_runs_in(home_client, tmp_path):
    editor = home_client.editor
    settings = {**JOB_SETTINGS, "python": f"~/envs/allo/bin/{PYTHON}", "llvmBuildDir": "${userHome}/llvm"}
    await change_settings(editor, settings)
    expanded = f"{FAKE_HOME}/envs/allo/bin/{PYTHON}"
    answer = await ask(editor)
    assert (answer["backend"], answer["python"]) == ("allo", expanded), answer["reason"]
    assert answer["reason"] == f"Allo with the LLVM build at {FAKE_HOME}/llvm"
    path = design(tmp_path, extra=WHICH)
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    result = await editor.click(uri, "▶ Simulate", "top")
    assert (result["status"], result["backend"]) == ("passed", "allo"), result.get("message")
    assert (tmp_path / "python.txt").read_text() == expanded


async def test_a_workspace_folder_interpreter_is_the_first_folders(home_client):
    await change_settings(home_client.editor, {**JOB_SETTINGS, "python": f"${{workspaceFolder}}/.venv/bin/{PYTHON}"})
    answer = await ask(home_client.editor)
    assert (answer["backend"], answer["python"]) == ("allo", f"{WORKSPACE}/.venv/bin/{PYTHON}"), answer["reason"]
