"""Races between the client's notifications and the server's analyses, found by the soak."""

import asyncio

import lsp_session
from lsprotocol import types as lsp
from paths import EXAMPLES

TEXT = "\n".join((EXAMPLES / name).read_text() for name in ["systolic_gemm.py", "tiled_gemm.py", "unsigned_streams.py"])


async def test_an_edit_before_the_first_analysis_is_analysed():
    """Opened, then typed into at once: the edit came while the first analysis ran, which it
    superseded; the server scheduled none for the edit (the document was not analysed yet), so
    the document got no diagnostics, hovers or lenses, on this edit or any later one."""
    async with lsp_session.session({"debounceMs": 0}) as s:
        for round_ in range(3):  # as opened for the first time, and reopened after a close
            uri = "file:///tmp/allo-lsp-races/design.py"
            s.client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    lsp.TextDocumentItem(uri=uri, language_id="python", version=10 * round_ + 1, text=TEXT)
                )
            )
            s.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(uri=uri, version=10 * round_ + 2),
                    [
                        lsp.TextDocumentContentChangePartial(
                            range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), text="#\n"
                        )
                    ],
                )
            )
            await s.diagnostics(uri, 10 * round_ + 2, timeout=10)
            s.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
            await asyncio.sleep(0.1)
        assert s.errors_logged() == []


async def test_incremental_edits_after_a_form_feed_land_where_the_client_made_them():
    """Lines end at `\\r\\n`, `\\r`, `\\n` in LSP; pygls split them with `str.splitlines`, which also
    breaks at a form feed (PEP 8 allows one between sections) or U+2028: every incremental edit
    after one landed a line off, and the server's text drifted from the editor's."""
    base = (EXAMPLES / "producer_consumer.py").read_text()
    text = base.replace("\n\n@df.region()", "\n\x0c\n@df.region()", 1).replace("# ", "# \u2028 ", 1)
    assert "\x0c" in text
    lines = text.split("\n")
    target = next(i for i, line in enumerate(lines) if line.startswith("def top("))
    async with lsp_session.session({"debounceMs": 0}) as s:
        uri = "file:///tmp/allo-lsp-races/form_feed.py"
        s.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        await s.diagnostics(uri, 1)
        # Break the region's `def` line, at its end, as the client counts lines.
        end = lsp.Position(target, len(lines[target]))
        s.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [lsp.TextDocumentContentChangePartial(range=lsp.Range(end, end), text=" (")],
            )
        )
        (syntax,) = [d for d in await s.diagnostics(uri, 2) if d.code == "ADF900"]
        assert syntax.range.start.line == target
        # And back: the server's text is the client's again, so nothing is reported.
        s.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
                [
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(end, lsp.Position(target, end.character + 2)), text=""
                    )
                ],
            )
        )
        assert [d.code for d in await s.diagnostics(uri, 3)] == []
