"""Where the lenses sit and what they say (issue 26, item 21), over stdio."""

from conftest import JOB_SETTINGS
from designs import design, line_of
from lsprotocol import types as lsp
from test_jobs import change_settings
from waiting import file_poll, until


async def test_region_lenses_start_at_the_decorator(job_editor, tmp_path):
    """VS Code draws a lens above its range's first line: on the `def` it sat between
    `@df.region()` and the `def`."""
    path = design(tmp_path)
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    decorator = line_of(path, "@df.region()") - 1
    assert line_of(path, "def top(") - 1 == decorator + 1
    region_lenses = [lens for lens in await job_editor.lenses(uri) if lens.command.arguments[1] == "top"]
    assert region_lenses and {lens.range.start.line for lens in region_lenses} == {decorator}


async def test_an_environment_failure_asks_with_actions_and_other_failures_stay_diagnostics(job_editor, tmp_path):
    """A job that failed for its environment: a message with the actions that fix it (the client
    maps them to commands). Any other failure is a diagnostic on the target: no message that
    would outlive the fix (VS Code cannot close a toast)."""
    asked = job_editor.client.asked  # answered by the test client (tests/lsp/editor.py)

    path = design(tmp_path, "segfault")
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    told = len(job_editor.client.messages)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["status"] != "passed"
    assert [d for d in job_editor.run_diagnostics(uri) if d.severity == lsp.DiagnosticSeverity.Error]
    assert not [m for m in job_editor.client.messages[told:] if m.type == lsp.MessageType.Error], "no toast"
    assert asked == []

    await change_settings(job_editor, {**JOB_SETTINGS, "python": str(tmp_path / "no-such-python")})
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["cause"] == "environment", result
    await until(lambda: asked, what="window/showMessageRequest", wake=file_poll)
    assert [a.title for a in asked[0].actions] == ["Open Settings", "Select Interpreter"]
    assert "no-such-python" in asked[0].message and asked[0].type == lsp.MessageType.Error


async def test_a_kernel_of_one_pe_says_1_pe(job_editor, tmp_path):
    """The Outline said "mapping [1] · 1 PEs"."""
    path = design(tmp_path)
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    symbols = await job_editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    details = [child.detail for symbol in symbols for child in (getattr(symbol, "children", None) or [])]
    assert "mapping [1] · 1 PE" in details, details
    assert not [d for d in details if d and "1 PEs" in d]
