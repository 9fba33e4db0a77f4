"""A document's features on its current text, answered from its newest analysis.

The analysis may be of an older text (the next one is debounced, or the text does not parse):
a position is moved back to the analysed text, and each result forward to the current one
(`LineShift`). What sits on a line edited since is left out: it is not known where it went.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.active_pe import ActivePe
from allo_lsp.ide.document import (
    DocumentAnalysis,
    LineShift,
    hint_forward,
    position_back,
    range_forward,
    symbol_forward,
)
from allo_lsp.ide.hover import hover
from allo_lsp.ide.inlay_hints import inlay_hints
from allo_lsp.ide.lenses import Lens, code_lenses
from allo_lsp.ide.navigation import definition, references
from allo_lsp.ide.symbols import document_symbols
from allo_lsp.ide.types import HoverResult, InlayHint, Symbol
from allo_lsp.protocol.messages import JobResult


@dataclass(frozen=True)
class Current:
    analysis: Analysis
    shift: LineShift | None  # from the analysed text to `text`; None: the same text
    text: str

    @staticmethod
    def of(result: DocumentAnalysis, text: str) -> Current:
        analysis, _, shift = result.view(text)
        return Current(analysis, shift, text)

    def hover(
        self, at: Position, reports: Mapping[str, dict], outcomes: list[JobResult], active: Iterable[ActivePe] = ()
    ) -> HoverResult | None:
        """`active`: the document's active PEs on the analysed text (`DocumentStore.active_pes`)."""
        pos = position_back(self.shift, at)
        found = hover(self.analysis, pos, reports, outcomes, active) if pos is not None else None
        moved = range_forward(self.shift, found.range) if found is not None else None
        return replace(found, range=moved) if moved is not None else None

    def definition(self, at: Position) -> Range | None:
        pos = position_back(self.shift, at)
        target = definition(self.analysis, pos) if pos is not None else None
        return range_forward(self.shift, target) if target is not None else None

    def references(self, at: Position, include_declaration: bool) -> list[Range]:
        pos = position_back(self.shift, at)
        found = references(self.analysis, pos, include_declaration) if pos is not None else []
        return [moved for r in found if (moved := range_forward(self.shift, r)) is not None]

    def symbols(self) -> list[Symbol]:
        return [s for s in (symbol_forward(self.shift, s) for s in document_symbols(self.analysis)) if s is not None]

    def inlay_hints(
        self, window: Range, reports: Mapping[str, dict], active: Iterable[ActivePe] = ()
    ) -> list[InlayHint]:
        """`active`: the document's active PEs on the analysed text, whose values are hints too."""
        found = inlay_hints(self.analysis, reports=reports) + [h for view in active for h in view.hints]
        moved = (hint_forward(self.shift, h) for h in found)
        return sorted((h for h in moved if h is not None and window.contains(h.position)), key=lambda h: h.position)

    def lenses(
        self,
        outcomes: dict[tuple[str, str], JobResult],
        running: set[tuple[str, str]],
        active: Iterable[ActivePe] = (),
    ) -> tuple[list[Lens], bool]:
        """The lenses, and whether one was left out (its line is being edited)."""
        chosen = {(view.region, view.kernel): view.pe.pid for view in active if view.pe is not None}
        lenses = code_lenses(self.analysis, outcomes, running, chosen)
        moved = [replace(lens, range=r) for lens in lenses if (r := range_forward(self.shift, lens.range)) is not None]
        return moved, len(moved) < len(lenses)
