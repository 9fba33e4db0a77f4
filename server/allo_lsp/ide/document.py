"""A document's analysis as the editor sees it while the user types.

While the text has a syntax error, features answer from the last analysis of a text that parsed
("last good"), moved to the current text: each line the two texts share maps to its new place,
and whatever sits on a line that was edited is dropped (the syntax error is what matters there).
So nothing flickers while a line is half typed.
"""

from __future__ import annotations

import bisect
import difflib
from dataclasses import dataclass, field, replace

from allo_lsp.analysis import Analysis, Options, ParseCache, Problem, analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.types import InlayHint, Symbol


@dataclass(frozen=True)
class LineShift:
    """Maps lines of an older text to a newer one: lines both texts share (difflib's matching
    blocks) map to each other; lines only the old text has map to nothing."""

    blocks: tuple[tuple[int, int, int], ...]  # (old start, new start, length), increasing

    @staticmethod
    def between(old: str, new: str) -> LineShift:
        a, b = old.split("\n"), new.split("\n")
        # The common prefix and suffix are most of a file while typing: keep difflib to the middle.
        prefix = 0
        limit = min(len(a), len(b))
        while prefix < limit and a[prefix] == b[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
            suffix += 1
        middle = difflib.SequenceMatcher(None, a[prefix : len(a) - suffix], b[prefix : len(b) - suffix], autojunk=False)
        blocks = [(0, 0, prefix)] if prefix else []
        blocks += [(i + prefix, j + prefix, n) for i, j, n in middle.get_matching_blocks() if n]
        if suffix:
            blocks.append((len(a) - suffix, len(b) - suffix, suffix))
        return LineShift(tuple(blocks))

    def forward(self, line: int) -> int | None:
        return _map(self.blocks, line, 0, 1)

    def backward(self, line: int) -> int | None:
        return _map(self.blocks, line, 1, 0)

    def range_forward(self, r: Range) -> Range | None:
        start, end = self.forward(r.start.line), self.forward(r.end.line)
        if start is None or end is None:
            return None
        return Range(Position(start, r.start.column), Position(end, r.end.column))

    def position_backward(self, p: Position) -> Position | None:
        line = self.backward(p.line)
        return None if line is None else Position(line, p.column)


@dataclass
class DocumentAnalysis:
    text: str
    version: int | None
    current: Analysis
    last_good: Analysis | None = None  # of `last_good_text`, when `current` has syntax errors
    last_good_text: str = ""
    shift: LineShift | None = field(default=None)
    cache: ParseCache = field(default_factory=ParseCache)  # this text's parsed chunks
    lenses: tuple | None = field(default=None, repr=False, compare=False)  # the server's encoded answer

    @staticmethod
    def build(text: str, version: int | None, options: Options, previous: DocumentAnalysis | None = None):
        # The previous analysis' chunks are reused where their text did not change.
        cache = previous.cache.copy() if previous else ParseCache()
        current = analyze(text, options, cache)
        doc = DocumentAnalysis(text, version, current, cache=cache)
        if current.model.syntax_errors and previous is not None:
            good, good_text = previous.good()
            if good is not None:
                doc.last_good, doc.last_good_text = good, good_text
                doc.shift = LineShift.between(good_text, text)
        return doc

    def good(self) -> tuple[Analysis | None, str]:
        """The newest analysis of a text that parsed, and that text."""
        if not self.current.model.syntax_errors:
            return self.current, self.text
        return self.last_good, self.last_good_text

    @property
    def usable(self) -> Analysis:
        """The newest analysis of a text that parsed, else the newest: what a job runs and an
        MLIR view is read against (the user's last complete code)."""
        return self.good()[0] or self.current

    @property
    def problems(self) -> list[Problem]:
        if self.last_good is None or self.shift is None:
            return self.current.problems
        kept = [p for p in self.current.problems if p.code == "ADF900"]
        for p in self.last_good.problems:
            moved = self.shift.range_forward(p.range)
            if moved is not None:
                kept.append(replace(p, range=moved))
        kept.sort(key=lambda p: (p.range.start, p.code))
        return kept

    def view(self, text: str) -> tuple[Analysis, str, LineShift | None]:
        """The analysis that answers requests on `text` (the document as it is now, possibly
        newer than what was analysed), the text it was computed on, and the shift from that
        text to `text` (None when they are equal)."""
        analysis, base = self.current, self.text
        if self.last_good is not None:
            analysis, base = self.last_good, self.last_good_text
        return analysis, base, None if base == text else LineShift.between(base, text)


CACHED_DOCUMENTS = 4  # the documents whose parse cache is kept (those edited most recently)


def keep_parse_caches(analyses: dict[str, DocumentAnalysis], recent: list[str], uri: str) -> list[str]:
    """Parse caches (libcst trees: megabytes per file) only for the documents edited last, `uri`
    now among them; returns those documents, newest first."""
    recent = [u for u in recent if u != uri and u in analyses][: CACHED_DOCUMENTS - 1]
    for old in [u for u in analyses if u != uri and u not in recent]:
        analyses[old].cache = ParseCache()
    return [uri, *recent]


def _map(blocks, line: int, src: int, dst: int) -> int | None:
    i = bisect.bisect_right([b[src] for b in blocks], line) - 1
    if i < 0:
        return None
    block = blocks[i]
    offset = line - block[src]
    return block[dst] + offset if offset < block[2] else None


def position_back(shift: LineShift | None, position: Position) -> Position | None:
    return position if shift is None else shift.position_backward(position)


def range_forward(shift: LineShift | None, r: Range) -> Range | None:
    return r if shift is None else shift.range_forward(r)


def symbol_forward(shift: LineShift | None, symbol: Symbol) -> Symbol | None:
    """The symbol (and its children) on the current text, or None if its lines were edited."""
    rng, sel = range_forward(shift, symbol.range), range_forward(shift, symbol.selection)
    if rng is None or sel is None:
        return None
    children = tuple(c for c in (symbol_forward(shift, c) for c in symbol.children) if c is not None)
    return replace(symbol, range=rng, selection=sel, children=children)


def hint_forward(shift: LineShift | None, hint: InlayHint) -> InlayHint | None:
    line = hint.position.line if shift is None else shift.forward(hint.position.line)
    return None if line is None else replace(hint, position=Position(line, hint.position.column))
