"""The MLIR job through the server: the module is read in the job, by the Allo that made it (the
stand-in's `allo._mlir`), and the analysis is checked against it; a planted difference
(`ALLO_STANDIN_DEPTH`, `ALLO_STANDIN_PES`: tests/standin/README.md) is reported as allo-lsp's bug."""

from pathlib import Path

import pytest
from designs import design, line_of
from lsprotocol import types as lsp

MLIR_SOURCE = "allo-lsp mlir"


def server_mapped(editor) -> set[str]:
    """The MLIR bindings whose shared libraries the server process has loaded."""
    maps = Path(f"/proc/{editor.client._server.pid}/maps").read_text()
    return {name for name in ("torch_mlir", "iree", "mlir_libs") if name in maps}


def mlir_problems(editor, uri: str) -> list[lsp.Diagnostic]:
    published = editor.published.get(uri, [])
    return [d for d in (published[-1].diagnostics if published else []) if d.source == MLIR_SOURCE]


async def open_design(editor, directory: Path, extra: str = "") -> tuple[Path, str]:
    directory.mkdir()
    path = design(directory, "ok", extra)
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    return path, uri


async def planted(editor, uri: str) -> lsp.Diagnostic:
    (found,) = await editor.until_published(uri, lambda: mlir_problems(editor, uri), "the MLIR job's diagnostic")
    return found


@pytest.fixture
def upstream_bindings():
    """The stand-in's `allo._mlir` re-exports upstream bindings (torch-mlir in the dev environment)."""
    pytest.importorskip("torch_mlir.ir")


async def test_the_runner_reads_the_module_and_the_server_checks_the_analysis(job_editor, tmp_path, upstream_bindings):
    _, agreeing = await open_design(job_editor, tmp_path / "agreeing")
    result = await job_editor.click(agreeing, "MLIR", "top")
    assert (result["status"], result["parseError"], result["bindings"]) == ("passed", None, "allo._mlir.ir")
    assert [f["name"] for f in result["functions"]] == ["producer_0", "consumer_0", "top"]
    # A stream compiled deeper than declared: the analysis disagrees, and says it is its own bug.
    path, deeper = await open_design(job_editor, tmp_path / "deeper", "\nALLO_STANDIN_DEPTH = 8\n")
    assert (await job_editor.click(deeper, "MLIR", "top"))["status"] == "passed"
    found = await planted(job_editor, deeper)
    assert (found.severity, found.code) == (lsp.DiagnosticSeverity.Warning, "mlir-analysis")
    assert found.range.start.line == line_of(path, "def top(") - 1
    assert "stream `pipe`" in found.message and "!allo.stream<i32, 4>" in found.message
    assert "Allo compiled 1 FIFO of !allo.stream<i32, 8>" in found.message
    assert "bug of allo-lsp's, not of the design" in found.message
    # The design whose module agrees has nothing from its MLIR job (published before the second's).
    assert mlir_problems(job_editor, agreeing) == []
    # Both modules were read in the jobs: the server never loaded MLIR bindings of its own.
    assert server_mapped(job_editor) == set()


async def test_a_planted_pe_count_is_reported_on_the_region(job_editor, tmp_path, upstream_bindings):
    _, uri = await open_design(job_editor, tmp_path / "pes", "\nALLO_STANDIN_PES = 2\n")
    result = await job_editor.click(uri, "MLIR", "top")
    assert result["bindings"] == "allo._mlir.ir"
    assert "producer_1" in [f["name"] for f in result["functions"]]
    messages = sorted(d.message for d in await planted_all(job_editor, uri, 2))
    assert "kernel `consumer`" in messages[0] and "kernel `producer`" in messages[1]
    assert "1 PE (mapping=[1]: producer_0); Allo compiled 2 PE functions (producer_0, producer_1)" in messages[1]


async def planted_all(editor, uri: str, count: int) -> list[lsp.Diagnostic]:
    return await editor.until_published(
        uri, lambda: found if len(found := mlir_problems(editor, uri)) == count else None, f"{count} MLIR diagnostics"
    )


async def test_an_allo_without_its_bindings_leaves_the_reading_to_the_server(job_editor, tmp_path, upstream_bindings):
    """The job's Allo has no `allo._mlir`: the server reads the headers with its own bindings
    (torch-mlir here), and what they tell (the PEs) is still checked."""
    extra = '\nALLO_STANDIN_BINDINGS = "none"\nALLO_STANDIN_PES = 2\n'
    _, uri = await open_design(job_editor, tmp_path / "unbound", extra)
    result = await job_editor.click(uri, "MLIR", "top")
    assert result["status"] == "passed" and result["parseError"] is None
    assert [f["name"] for f in result["functions"]] == ["producer_0", "producer_1", "consumer_0", "consumer_1", "top"]
    assert len(await planted_all(job_editor, uri, 2)) == 2
    assert server_mapped(job_editor) == {"torch_mlir", "mlir_libs"}
