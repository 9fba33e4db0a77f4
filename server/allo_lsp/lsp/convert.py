"""The only place that knows both the `ide`/`analysis` data and lsprotocol types.

Internal columns count code points; the client's count UTF-16 units (or whatever encoding was
negotiated): `PositionCodec` converts with the lines of the text the data was computed on.
"""

from __future__ import annotations

import hashlib

from lsprotocol import types as lsp
from pygls.workspace.position_codec import PositionCodec

from allo_lsp import rule_docs
from allo_lsp.analysis.model import Position, Range
from allo_lsp.analysis.problems import Problem
from allo_lsp.ide.active_pe import ActivePe
from allo_lsp.ide.fix_all import KIND as FIX_ALL
from allo_lsp.ide.graph_model import Graph
from allo_lsp.ide.lenses import CANCEL, Lens
from allo_lsp.ide.types import CodeAction, HoverResult, InlayHint, Symbol
from allo_lsp.protocol.messages import JobResult
from allo_lsp.session.project_config import WATCHED

RUNNING = "running"  # the status answering a job command whose target is running already

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
        """`range` as JSON, for answers encoded once (`jsonrpc/encoded.py`)."""
        start, end = self.position(r.start), self.position(r.end)
        return {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        }

    @staticmethod
    def utf16(text: str) -> Converter:
        """A converter on `text` for output outside a session (`allo-lsp graph`): UTF-16, LSP's default."""
        return Converter(PositionCodec(), text.split("\n"))

    def region_graph(self, graph: Graph) -> dict:
        return graph.to_json(self.range_json)

    def active_pe(self, found: ActivePe) -> dict:  # alloDataflow/activePe's answer (README)
        return found.to_json(self.range_json)

    def from_position(self, p: lsp.Position) -> Position:
        server = self.codec.position_from_client_units(self.lines, p)
        return Position(server.line, server.character)

    def from_range(self, r: lsp.Range) -> Range:
        return Range(self.from_position(r.start), self.from_position(r.end))

    def diagnostic(self, p: Problem, source: str = "allo-lsp") -> lsp.Diagnostic:
        href = rule_docs.href(p.code) if p.code else None  # the rule's page (a configuration's problem has none)
        return lsp.Diagnostic(
            range=self.range(p.range),
            message=p.message,
            severity=lsp.DiagnosticSeverity(int(p.severity)),
            code=p.code or None,
            code_description=lsp.CodeDescription(href=href) if href else None,
            source=source,
            data=p.data or None,
        )

    def diagnostics(self, problems: list[Problem]) -> list[lsp.Diagnostic]:
        return [self.diagnostic(p) for p in problems]

    def location(self, uri: str, r: Range) -> lsp.Location:
        return lsp.Location(uri, self.range(r))

    def lens_json(self, uri: str, lens: Lens) -> dict:
        """A code lens as JSON, for answers encoded once (`jsonrpc/encoded.py`); a running job's
        lens (which cancels it) names the job's kind too, a PE lens its kernel."""
        if lens.command == CANCEL:
            arguments = [uri, lens.name, lens.kind]
        else:
            arguments = [uri, lens.name] if lens.kernel is None else [uri, lens.name, lens.kernel]
        command = {"title": lens.title, "command": lens.command, "arguments": arguments}
        return {"range": self.range_json(lens.range), "command": command}

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

    def code_action(
        self, uri: str, version: int | None, a: CodeAction, diagnostics: list[lsp.Diagnostic]
    ) -> lsp.CodeAction:
        """Edits of the document (at `version`), a new file (`a.new_file`) or a command (`a.command`)."""
        command = lsp.Command(title=a.title, command=a.command[0], arguments=a.command[1]) if a.command else None
        return lsp.CodeAction(
            title=a.title,
            kind=lsp.CodeActionKind(a.kind) if a.kind in lsp.CodeActionKind._value2member_map_ else a.kind,
            diagnostics=[d for d in diagnostics if d.code in a.codes] or None,
            is_preferred=a.preferred or None,
            edit=None if a.command else self._edit(uri, version, a),
            command=command,
        )

    def _edit(self, uri: str, version: int | None, a: CodeAction) -> lsp.WorkspaceEdit:
        if a.new_file is not None:  # written whole, overwriting a file there
            uri, text = a.new_file
            create = lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=True))
            start = lsp.Position(0, 0)
            edits, changes = [lsp.TextEdit(range=lsp.Range(start, start), new_text=text)], [create]
        else:
            edits, changes = [lsp.TextEdit(range=self.range(e.range), new_text=e.new_text) for e in a.edits], []
        document = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None if a.new_file else version)
        return lsp.WorkspaceEdit(document_changes=[*changes, lsp.TextDocumentEdit(text_document=document, edits=edits)])


# -- values that carry no position: the features' options, messages, progress, registrations ------

INLAY_HINT_OPTIONS = lsp.InlayHintOptions(resolve_provider=False)
CODE_ACTION_OPTIONS = lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Source, FIX_ALL], resolve_provider=False
)


def log_message(text: str, level: str) -> lsp.LogMessageParams:
    # A debug line is a Log (LSP 3.17), not 3.18's Debug: clients of 3.17 (pytest-lsp) fail on that.
    kinds = {"error": lsp.MessageType.Error, "warn": lsp.MessageType.Warning, "debug": lsp.MessageType.Log}
    return lsp.LogMessageParams(kinds.get(level, lsp.MessageType.Info), text)


def show_message(text: str, error: bool = False) -> lsp.ShowMessageParams:
    return lsp.ShowMessageParams(lsp.MessageType.Error if error else lsp.MessageType.Warning, text)


def message_request(text: str, actions: tuple[str, ...]) -> lsp.ShowMessageRequestParams:
    return lsp.ShowMessageRequestParams(lsp.MessageType.Error, text, [lsp.MessageActionItem(a) for a in actions])


def published(uri: str, diagnostics: list[lsp.Diagnostic], version: int | None = None) -> lsp.PublishDiagnosticsParams:
    return lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)


def configuration_request(*sections: str) -> lsp.ConfigurationParams:
    return lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=section) for section in sections])


def registrations(wanted: list[tuple[str, str, object]]) -> lsp.RegistrationParams:
    """(id, method, options) each."""
    return lsp.RegistrationParams(registrations=[lsp.Registration(i, method, options) for i, method, options in wanted])


# Pulled diagnostics: each answer's `resultId` is a digest of the diagnostics, so that the same
# diagnostics answer "unchanged", however they were computed again.
DIAGNOSTIC_OPTIONS = lsp.DiagnosticOptions(
    inter_file_dependencies=False, workspace_diagnostics=True, identifier="allo-lsp"
)
CONFIG_FILES = lsp.DidChangeWatchedFilesRegistrationOptions(watchers=[lsp.FileSystemWatcher(glob_pattern=WATCHED)])
WATCHED_FILES = lsp.DidChangeWatchedFilesRegistrationOptions(
    watchers=[lsp.FileSystemWatcher(glob_pattern=glob) for glob in ("**/*.py", "**/.gitignore")]
)


def _result_id(diagnostics: list[lsp.Diagnostic]) -> str:
    return hashlib.blake2b(repr(diagnostics).encode(), digest_size=8).hexdigest()


def document_report(diagnostics: list[lsp.Diagnostic], previous: str | None):
    result_id = _result_id(diagnostics)
    if result_id == previous:
        return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return lsp.RelatedFullDocumentDiagnosticReport(items=diagnostics, result_id=result_id)


def workspace_item(uri: str, diagnostics: list[lsp.Diagnostic]) -> lsp.WorkspaceFullDocumentDiagnosticReport:
    return lsp.WorkspaceFullDocumentDiagnosticReport(
        uri=uri, version=None, items=diagnostics, result_id=_result_id(diagnostics)
    )


def partial_workspace_report(token, items: list) -> lsp.ProgressParams:
    return lsp.ProgressParams(token=token, value=lsp.WorkspaceDiagnosticReportPartialResult(items=items))


def workspace_report(items: list) -> lsp.WorkspaceDiagnosticReport:
    return lsp.WorkspaceDiagnosticReport(items=items)


def progress_begin(title: str) -> lsp.WorkDoneProgressBegin:
    return lsp.WorkDoneProgressBegin(title=title, cancellable=True)


def progress_report(message: str) -> lsp.WorkDoneProgressReport:
    return lsp.WorkDoneProgressReport(message=message)


def progress_end(message: str) -> lsp.WorkDoneProgressEnd:
    return lsp.WorkDoneProgressEnd(message=message)


# -- the answers of our own commands ---------------------------------------------------------------


def job_answer(outcome: JobResult, kind: str) -> dict:
    """A job's outcome as its command answers it (the details stay with the server)."""
    data = outcome.to_json()
    data["kind"] = kind
    data.pop("details", None)
    return data


def running_answer(name: str, kind: str) -> dict:
    return {
        "status": RUNNING,
        "message": f"'{name}' ({kind}) is already running: its lens cancels it",
        "target": name,
        "kind": kind,
    }
