"""The real server over stdio, driven with the capabilities of VS Code and of Neovim (pytest-lsp)."""

import os
import sys

import pytest
import pytest_lsp
from designs import fake_llvm_build_dir
from editor import Editor
from lsprotocol import types as lsp
from paths import STANDIN
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

CLIENTS = ["visual_studio_code", "neovim"]


def make_client() -> LanguageClient:
    """pytest-lsp's client, except that published diagnostics keep their document version."""
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    del features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    register_lsp_features(client, features)
    client.editor = None

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams):
        return None  # editors accept dynamic registrations; pytest-lsp's client has no handler

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    async def refresh_lenses(params):
        client.lens_refreshes = getattr(client, "lens_refreshes", 0) + 1
        if client.editor is not None:
            await client.editor.on_lens_refresh()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def publish(params: lsp.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        if client.editor is not None:
            await client.editor.on_publish(params)

    return client


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
