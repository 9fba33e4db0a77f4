"""Outline and breadcrumbs right after a (re)start (issue 26, item 17): VS Code asks for the
document's symbols as soon as it has sent `didOpen` to the new server, before the server has
analysed the document; the old server answered [] and the Outline stayed empty until the next edit.
A request on a document whose first analysis is still to come waits for it (bounded)."""

from lsprotocol import types as lsp


async def test_document_symbols_asked_right_after_did_open_are_the_documents(editor):
    uri = editor.open_example("pitfall_bare_scalar.py")
    symbols = await editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    # The example's region, with its kernels inside: what the Outline shows once analysed.
    assert [(s.name, s.kind) for s in symbols] == [("top", lsp.SymbolKind.Namespace)]
    assert symbols[0].children, "the region's kernels"


async def test_a_document_never_analysed_is_answered_at_once(editor):
    """An MLIR view or a file of another language is not analysed: nothing to wait for."""
    uri = "file:///tmp/allo-lsp-tests/notes.txt"
    editor.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text="x"))
    )
    symbols = await editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    assert symbols == []
