"""The only place that knows both the `ide`/`analysis` data and lsprotocol types.

Internal columns count code points; the client's count UTF-16 units (or whatever encoding was
negotiated): `PositionCodec` converts with the lines of the text the data was computed on.
"""

from __future__ import annotations

from lsprotocol import types as lsp
from pygls.workspace.position_codec import PositionCodec

from allo_lsp.analysis.model import Position, Range
from allo_lsp.analysis.problems import Problem
from allo_lsp.ide.types import CodeAction, HoverResult, InlayHint, Symbol

_SYMBOL_KINDS = {
    "region": lsp.SymbolKind.Namespace,
    "kernel": lsp.SymbolKind.Function,
    "stream": lsp.SymbolKind.Event,
    "parameter": lsp.SymbolKind.Variable,
}


class Converter:
    def __init__(self, codec: PositionCodec, lines: list[str]) -> None:
        self.codec = codec
        self.lines = lines

    def position(self, p: Position) -> lsp.Position:
        return self.codec.position_to_client_units(self.lines, lsp.Position(p.line, p.column))

    def range(self, r: Range) -> lsp.Range:
        return lsp.Range(self.position(r.start), self.position(r.end))

    def range_json(self, r: Range) -> dict:
        """`range` as JSON, for answers encoded once (`encoded.py`)."""
        start, end = self.position(r.start), self.position(r.end)
        return {"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}}

    def from_position(self, p: lsp.Position) -> Position:
        server = self.codec.position_from_client_units(self.lines, p)
        return Position(server.line, server.character)

    def from_range(self, r: lsp.Range) -> Range:
        return Range(self.from_position(r.start), self.from_position(r.end))

    def diagnostic(self, p: Problem) -> lsp.Diagnostic:
        return lsp.Diagnostic(
            range=self.range(p.range),
            message=p.message,
            severity=lsp.DiagnosticSeverity(int(p.severity)),
            code=p.code,
            source="allo-lsp",
            data=p.data or None,
        )

    def hover(self, h: HoverResult) -> lsp.Hover:
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=h.markdown),
            range=self.range(h.range),
        )

    def symbol(self, s: Symbol) -> lsp.DocumentSymbol:
        return lsp.DocumentSymbol(
            name=s.name,
            kind=_SYMBOL_KINDS[s.kind],
            detail=s.detail,
            range=self.range(s.range),
            selection_range=self.range(s.selection),
            children=[self.symbol(c) for c in s.children],
        )

    def inlay_hint(self, h: InlayHint) -> lsp.InlayHint:
        return lsp.InlayHint(
            position=self.position(h.position),
            label=h.label,
            kind=lsp.InlayHintKind.Parameter if h.kind == "parameter" else lsp.InlayHintKind.Type,
            padding_left=h.padding_left,
            padding_right=h.padding_right,
        )

    def code_action(self, uri: str, version: int | None, a: CodeAction, diagnostics: list[lsp.Diagnostic]) -> lsp.CodeAction:
        edits = [lsp.TextEdit(range=self.range(e.range), new_text=e.new_text) for e in a.edits]
        document = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return lsp.CodeAction(
            title=a.title,
            kind=lsp.CodeActionKind(a.kind) if a.kind in lsp.CodeActionKind._value2member_map_ else a.kind,
            diagnostics=[d for d in diagnostics if d.code in a.codes] or None,
            is_preferred=a.preferred or None,
            edit=lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=document, edits=edits)]),
        )
