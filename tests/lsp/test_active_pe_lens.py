"""A kernel's active PE in the editor (issue 30), over stdio: the PE lens above each kernel of
more than one PE names its active PE and opens the client's picker (`alloDataflow.pickPe` with
the region and the kernel); a choice through `alloDataflow/activePe` retitles it, adds the PE's
values to the inlay hints, and asks the client for both again (codeLens and inlayHint refresh)."""

import asyncio

from editor import find
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import client_capabilities
from test_active_pe import active_pe

SYSTOLIC = (EXAMPLES / "systolic_gemm.py").read_text()
PICK_PE = "alloDataflow.pickPe"


async def pe_lenses(editor, uri: str) -> list[tuple[str, list]]:
    return [
        (lens.command.title, list(lens.command.arguments))
        for lens in await editor.lenses(uri)
        if lens.command.command == PICK_PE
    ]


async def hints(editor, uri: str) -> list[str]:
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(len(SYSTOLIC.split("\n")), 0))
    found = await editor.client.text_document_inlay_hint_async(
        lsp.InlayHintParams(lsp.TextDocumentIdentifier(uri), whole)
    )
    return [h.label if isinstance(h.label, str) else "".join(part.value for part in h.label) for h in found or []]


async def until(ready, what: str) -> None:
    for _ in range(200):
        if ready():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"waited 10 s for {what}")


async def test_the_pe_lens_follows_the_active_pe(editor):
    uri = editor.open_example("systolic_gemm.py")
    await editor.analysed(uri)
    lenses = await pe_lenses(editor, uri)
    assert lenses == [("◎ PE: all 36 of 6x6", [uri, "top", "gemm"])], lenses
    line, _ = find(SYSTOLIC, "@df.kernel(mapping=[P0, P1]")
    lens = next(x for x in await editor.lenses(uri) if x.command.command == PICK_PE)
    assert lens.range.start.line == line  # above the kernel's decorator
    before = await hints(editor, uri)
    assert "i = 1, j = 2" not in before

    lens_refreshes = getattr(editor.client, "lens_refreshes", 0)
    inlay_refreshes = getattr(editor.client, "inlay_refreshes", 0)
    await active_pe(editor, uri, "gemm", "gemm_1_2")
    # Each client is asked again where its capabilities say it can be (pytest-lsp's VS Code
    # capabilities offer the lenses' refresh, Neovim's the inlay hints').
    offered = client_capabilities(editor.name).workspace
    if offered.code_lens and offered.code_lens.refresh_support:
        await until(lambda: getattr(editor.client, "lens_refreshes", 0) > lens_refreshes, "a codeLens refresh")
    if offered.inlay_hint and offered.inlay_hint.refresh_support:
        await until(lambda: getattr(editor.client, "inlay_refreshes", 0) > inlay_refreshes, "an inlayHint refresh")
    assert await pe_lenses(editor, uri) == [("◎ PE (1, 2) of 6x6", [uri, "top", "gemm"])]
    after = await hints(editor, uri)
    assert [h for h in after if h not in before] == ["i = 1, j = 2", "= [1, 2]", "= [1, 2]", "= [1, 3]", "= [2, 2]"]

    await active_pe(editor, uri, "gemm", clear=True)
    assert await pe_lenses(editor, uri) == [("◎ PE: all 36 of 6x6", [uri, "top", "gemm"])]
    assert await hints(editor, uri) == before


async def test_no_pe_lens_on_a_kernel_of_one_pe(editor):
    text = """import allo.dataflow as df
from allo.ir.types import int32

@df.region()
def top(A: int32[4], B: int32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def copy(a: int32[4], b: int32[4]):
        for i in range(4):
            b[i] = a[i]
"""
    uri = editor.open(text)
    await editor.analysed(uri)
    assert await pe_lenses(editor, uri) == []
