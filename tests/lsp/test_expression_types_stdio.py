"""Allo's types of a kernel's expressions over stdio, as an editor asks for them (issue 27.5)."""

from editor import find
from lsprotocol import types as lsp

DESIGN = """\
from allo.ir.types import int8, int32
import allo.dataflow as df

M = 8


@df.region()
def top(A: int8[M], C: int32[M]):
    @df.kernel(mapping=[1], args=[A, C])
    def k(a: int8[M], c: int32[M]):
        for i in range(M):
            p = a[i] * a[i]
            c[i] = p
"""


async def test_hover_and_inlay_hint_show_the_allo_type(editor):
    uri = editor.open(DESIGN, "typed.py")
    await editor.diagnostics(uri)
    line, col = find(DESIGN, "* a[i]")
    assert await editor.hover(uri, line, col) == "Allo type `Int(16)` (Allo prints `i16`)"
    hints = await editor.client.text_document_inlay_hint_async(
        lsp.InlayHintParams(lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(14, 0)))
    )
    p_line, p_col = find(DESIGN, "p = a[i]")
    assert [(h.position.line, h.position.character, h.label) for h in hints if h.label == ": Int(16)"] == [
        (p_line, p_col + 1, ": Int(16)")
    ]
