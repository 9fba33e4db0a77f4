"""The client's documents, kept exactly as the client has them: pygls' workspace, fixed where
its text left the client's.

Keyed by the URI as the client wrote it, lines as LSP counts them and edits applied as VS Code
applies them (`ide/text_edit.py`), no file read that the client has not opened, an edit of a
document that is not open ignored. No feature: the server (`lsp/`) reads the text from here.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from allo_lsp.ide.text_edit import apply_edit, lsp_lines

log = logging.getLogger(__name__)

# Each "pygls 2.1 private" member below is why pyproject.toml pins pygls to 2.1.x: a private name
# may change in any release, and these overrides would then silently stop applying.


class ClientDocument(TextDocument):
    """A document whose lines end where LSP says (`ide/text_edit.py`), and whose edits apply as
    VS Code applies them to its own text: pygls dropped or misplaced an edit out of range, and the
    server's text silently left the client's."""

    @property
    def lines(self):
        return lsp_lines(self.source)

    @property
    def source(self) -> str:
        # pygls reads a document the client never opened from disk, whole, on the event loop: a
        # request on a FIFO or /dev/stdin hung the server, on /dev/zero it grew to 21 GB. Only
        # the client's text counts; a file it has not opened is empty.
        # pygls 2.1 private `_source`: no upstream issue found (pygls reads an unopened document on purpose).
        return self._source or ""

    # pygls 2.1 private `_apply_incremental_change`, `_position_codec`: no upstream issue found for out-of-range edits.
    def _apply_incremental_change(self, change) -> None:
        codec, r = self._position_codec, change.range
        units_of = None if codec.encoding == lsp.PositionEncodingKind.Utf32 else codec.client_num_units
        self._source, why = apply_edit(
            self.source, (r.start.line, r.start.character), (r.end.line, r.end.character), change.text, units_of
        )
        if why is not None:
            log.warning(
                "%s: the edit at %s:%s-%s:%s is %s: applied as an editor does (clamped to the text, ends in order)",
                self.uri,
                r.start.line,
                r.start.character,
                r.end.line,
                r.end.character,
                why,
            )


class ClientWorkspace(Workspace):
    @staticmethod
    def adopt(workspace: Workspace) -> None:
        """pygls makes its workspace just before `initialize`: from then on its documents are these."""
        if type(workspace) is Workspace:
            # No hook chooses pygls' Workspace class: https://github.com/openlawlibrary/pygls/issues/131 (closed, none added).
            workspace.__class__ = ClientWorkspace

    # pygls 2.1 private `_create_text_document`, `_sync_kind`, `_position_codec`: openlawlibrary/pygls#131 as above.
    def _create_text_document(self, doc_uri, source=None, version=None, language_id=None) -> TextDocument:
        return ClientDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )

    # pygls keys documents by the unquoted URI: `c%20d.py` (a file named `c d.py`) and
    # `c%2520d.py` (one named `c%20d.py`) or `c d.py`, each a document of its own for the client,
    # were one here. Keyed by the URI as the client wrote it.
    # pygls 2.1 private `_text_documents`, `_cell_in_notebook`: no upstream issue found for the unquoted keys.
    def get_text_document(self, doc_uri: str) -> TextDocument:
        return self._text_documents.get(doc_uri) or self._create_text_document(doc_uri)

    def put_text_document(self, text_document: lsp.TextDocumentItem, notebook_uri: str | None = None) -> None:
        self._text_documents[text_document.uri] = self._create_text_document(
            text_document.uri,
            source=text_document.text,
            version=text_document.version,
            language_id=text_document.language_id,
        )
        if notebook_uri:
            self._cell_in_notebook[unquote(text_document.uri)] = unquote(notebook_uri)

    def remove_text_document(self, doc_uri: str) -> None:
        self._text_documents.pop(doc_uri, None)
        self._cell_in_notebook.pop(unquote(doc_uri), None)

    def update_text_document(self, text_doc: lsp.VersionedTextDocumentIdentifier, change) -> None:
        document = self._text_documents.get(text_doc.uri)
        # The KeyError of an edit of an unknown document: https://github.com/openlawlibrary/pygls/issues/168 (closed as the user's slip).
        if document is None:  # pygls raised, and showed the user "Error in server" for the client's slip
            log.warning("%s: an edit of a document that is not open: ignored", text_doc.uri)
            return
        document.apply_change(change)
        document.version = text_doc.version
