"""The real server over stdio, driven with the capabilities of VS Code and of Neovim (pytest-lsp)."""

import atexit
import os
import shutil
import sys
import tempfile

import pytest
import pytest_lsp
from designs import fake_llvm_build_dir
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import STANDIN
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = ["visual_studio_code", "neovim"]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client),
    params=CLIENTS,
)
async def client(lsp_client: LanguageClient, request):
    lsp_client.editor = Editor(lsp_client, request.param)
    lsp_client.set_configuration({"alloBuild": "auto", "debounceMs": 50}, section="alloDataflow")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities(request.param)))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def editor(client) -> Editor:
    return client.editor


def _job_server_env() -> dict[str, str]:
    """The server's environment for job tests: the stand-in Allo importable by the runner, and
    no LLVM_BUILD_DIR inherited (each test says what it wants through the settings)."""
    env = dict(os.environ)
    env.pop("LLVM_BUILD_DIR", None)
    env["PYTHONPATH"] = str(STANDIN)
    env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # the stand-in vitis_hls
    # The workspaces' storage (synthesis reports kept across servers, cluster jobs) out of the home.
    env["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="allo-lsp-test-state-")
    atexit.register(shutil.rmtree, env["XDG_STATE_HOME"], ignore_errors=True)
    return env


JOB_SETTINGS = {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 20}


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"],
        client_factory=make_client,
        server_env=_job_server_env(),
    ),
    params=CLIENTS,
)
async def job_client(lsp_client: LanguageClient, request):
    lsp_client.editor = Editor(lsp_client, request.param)
    lsp_client.set_configuration(dict(JOB_SETTINGS), section="alloDataflow")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities(request.param)))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def job_editor(job_client) -> Editor:
    return job_client.editor
