"""Diagnostics as the analysis reports them, before any editor or output format sees them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from allo_lsp.analysis.model import Range


class Severity(IntEnum):
    # The LSP numbering, so that no layer has to translate it.
    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Problem:
    code: str
    severity: Severity
    range: Range
    message: str
    # What a quick fix needs to act without re-deriving it: names, never positions of other nodes.
    data: dict = field(default_factory=dict, compare=False, hash=False)
