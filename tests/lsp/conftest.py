"""The real server over stdio, driven with the capabilities of VS Code and of Neovim (pytest-lsp)."""

import sys

import pytest
import pytest_lsp
from editor import Editor
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from pygls.protocol import default_converter

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

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def publish(params: lsp.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        if client.editor is not None:
            await client.editor.on_publish(params)

    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client
    ),
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


