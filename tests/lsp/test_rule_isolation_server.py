"""A rule that raises, through the real server over stdio: the editor shows the other rules'
diagnostics and one ADF902 naming the rule, linked to its page (the server before published
nothing for the file: the whole analysis failed)."""

import sys

import pytest_lsp
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

# The server, with ADF003's rule replaced by one that raises before it serves.
BROKEN_SERVER = (
    "import sys\n"
    "from allo_lsp.analysis.rules import BY_CODE\n"
    "def broken(ctx):\n"
    "    raise IndexError('list index out of range')\n"
    "BY_CODE['ADF003'].module.check = broken\n"
    "from allo_lsp.cli import main\n"
    "sys.exit(main(['serve']))\n"
)


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-c", BROKEN_SERVER], client_factory=make_client)
)
async def broken_client(lsp_client: LanguageClient):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration({"alloBuild": "auto", "debounceMs": 50}, section="alloDataflow")
    caps = client_capabilities("visual_studio_code")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=caps))
    yield
    await lsp_client.shutdown_session()


async def test_a_rule_that_raises_costs_only_its_own_diagnostics(broken_client):
    editor = broken_client.editor
    uri = editor.open((EXAMPLES / "pitfall_arg_order.py").read_text())

    diagnostics = await editor.diagnostics(uri, timeout=20)

    assert sorted(d.code for d in diagnostics) == ["ADF005", "ADF902"]
    internal = next(d for d in diagnostics if d.code == "ADF902")
    assert internal.severity == lsp.DiagnosticSeverity.Warning
    assert internal.message.startswith("ADF003 (legacy-arg-order) failed on this file with IndexError")
    assert "a bug in allo-lsp, not in your design" in internal.message
    assert internal.code_description is not None and internal.code_description.href.endswith("/ADF902.md")
