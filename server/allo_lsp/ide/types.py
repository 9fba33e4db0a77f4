"""The editor-neutral vocabulary of `ide/`: frozen dataclasses in editor terms.

Ranges are `analysis.model.Range` (0-based lines, code-point columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from allo_lsp.analysis.model import Position, Range


@dataclass(frozen=True)
class TextEdit:
    range: Range
    new_text: str


@dataclass(frozen=True)
class CodeAction:
    title: str
    kind: str  # "quickfix", "refactor.rewrite", ...
    edits: tuple[TextEdit, ...]  # of the document
    codes: tuple[str, ...] = ()  # the diagnostic codes it fixes
    preferred: bool = False
    new_file: tuple[str, str] | None = None  # (URI, text): a file written instead of edits
    command: tuple[str, list] | None = None  # (command, arguments): run instead of an edit


@dataclass(frozen=True)
class HoverResult:
    range: Range
    markdown: str


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # "region", "kernel", "stream", "parameter"
    detail: str
    range: Range  # the whole construct
    selection: Range  # its name
    children: tuple[Symbol, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class InlayHint:
    position: Position
    label: str
    kind: str  # "parameter" or "type"
    padding_left: bool = False
    padding_right: bool = False
