"""The stream rules through the real server: a consumer-first design built for hw_emu is flagged
(ADF023, a warning) and its quick fix, applied as the editor applies it, leaves it clean; a
stream cycle is information (ADF027)."""

from pathlib import Path

from lsprotocol import types as lsp

FIXES = Path(__file__).parent.parent / "ide" / "fixes"


def _apply(text: str, edits) -> str:
    """LSP edits on an ASCII text (columns are UTF-16 units, equal to characters here)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = starts[edit.range.start.line] + edit.range.start.character
        end = starts[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


async def test_consumer_first_kernels_are_reordered_by_the_quick_fix(editor):
    text = (FIXES / "ADF023_reorders_kernels_with_comments.py").read_text()
    assert text.isascii()
    uri = editor.open(text, "consumer_first.py")
    flagged = [d for d in await editor.diagnostics(uri) if d.code == "ADF023"]
    assert [d.severity for d in flagged] == [lsp.DiagnosticSeverity.Warning] * 2
    actions = await editor.client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), flagged[0].range, lsp.CodeActionContext(diagnostics=flagged[:1])
        )
    )
    [fix] = [a for a in actions if a.title.startswith("Define the kernels producers first")]
    fixed = _apply(text, fix.edit.document_changes[0].edits)
    version = editor.replace_all(uri, fixed)
    assert [d.code for d in await editor.diagnostics(uri, version)] == []
    assert fixed.index("def load(") < fixed.index("def work(") < fixed.index("def store(")


async def test_a_stream_cycle_is_information(editor):
    uri = editor.open((FIXES / "ADF023_keeps_a_cycle_together.py").read_text(), "cycle.py")
    cycle = [d for d in await editor.diagnostics(uri) if d.code == "ADF027"]
    assert [d.severity for d in cycle] == [lsp.DiagnosticSeverity.Information]
