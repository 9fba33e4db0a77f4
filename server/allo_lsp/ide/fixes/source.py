"""The file a fix edits: its text, its libcst tree, and the positions that tie one to the other.

Edits are computed from node positions and replace only the text that changes, so formatting,
comments and spacing elsewhere survive byte for byte. The tree comes from `analysis.parse`, which
sets aside lines it cannot parse without moving any other line; a fix that would read or edit one
of those lines is unavailable rather than wrong.
"""

from __future__ import annotations

import functools
import re
from typing import TypeVar

import libcst as cst

from allo_lsp.analysis import deep
from allo_lsp.analysis.chunks import positions
from allo_lsp.analysis.model import Position, Range
from allo_lsp.analysis.parse import parse
from allo_lsp.ide.fixes.base import Unavailable
from allo_lsp.ide.types import TextEdit

N = TypeVar("N", bound=cst.CSTNode)
_COMMA = re.compile(r"\s*,")


@functools.lru_cache(maxsize=2)
def _source_of(text: str) -> Source | None:
    module = parse(text).module
    if module is None:
        return None
    try:
        return Source(text, module)
    except RecursionError:  # its code generation recurses per node: room for a deep tree
        return deep.call(Source, text, module)


class Source:
    def __init__(self, text: str, module: cst.Module) -> None:
        self.text = text
        self.module = module
        self.lines = text.split("\n")
        parsed = module.code.split("\n")
        # Lines the parser replaced: the tree says nothing true about them.
        self.set_aside = {i for i, line in enumerate(self.lines) if i >= len(parsed) or parsed[i] != line}
        self.positions = positions(module)
        self._starts = []
        offset = 0
        for line in self.lines:
            self._starts.append(offset)
            offset += len(line) + 1
        self._functions: dict[Range, cst.FunctionDef] | None = None
        self._units: list[tuple[int, int]] | None = None
        self._spanning: dict[Range, list[cst.CSTNode]] | None = None

    @staticmethod
    def of(text: str) -> Source | None:
        """The Source of `text`, None when nothing of it parses. The last two are kept: editors
        ask for code actions at every move of the cursor, on the same text."""
        return _source_of(text)

    # -- positions and text -----------------------------------------------------------------

    def range(self, node: cst.CSTNode) -> Range:
        pos = self.positions.get(node)
        if pos is None:
            raise Unavailable("node without a position")
        return Range.of(pos.start.line - 1, pos.start.column, pos.end.line - 1, pos.end.column)

    def text_at(self, r: Range) -> str:
        self._check(r)
        return self.text[self._offset(r.start) : self._offset(r.end)]

    def text_of(self, node: cst.CSTNode) -> str:
        return self.text_at(self.range(node))

    def line_end(self, line: int) -> Position:
        return Position(line, len(self.lines[line].rstrip("\r")))

    def _offset(self, pos: Position) -> int:
        return self._starts[pos.line] + pos.column

    def _check(self, r: Range) -> None:
        if not (0 <= r.start.line <= r.end.line < len(self.lines)):
            raise Unavailable("range outside the text")
        if any(line in self.set_aside for line in range(r.start.line, r.end.line + 1)):
            raise Unavailable("range on a line the parser set aside")

    def unit_at(self, line: int) -> tuple[int, int]:
        """The innermost function (a kernel, a region, a test; decorators included) that holds
        `line`, else the top-level statement, as its first and last line: what one fix of a
        fix-all round may change without another one of the round reading it."""
        if self._units is None:
            functions = [node for node in self.positions if isinstance(node, cst.FunctionDef)]
            functions += [s for s in self.module.body if not isinstance(s, cst.FunctionDef)]
            self._units = sorted(self._lines_of(node) for node in functions)
        holding = [u for u in self._units if u[0] <= line <= u[1]]
        return max(holding) if holding else (line, line)  # the innermost starts last

    def _lines_of(self, node: cst.CSTNode) -> tuple[int, int]:
        decorators = getattr(node, "decorators", ())
        first = min([self.range(node).start.line] + [self.range(d).start.line for d in decorators])
        return first, self.range(node).end.line

    # -- finding nodes ----------------------------------------------------------------------

    def function(self, name_range: Range) -> cst.FunctionDef:
        """The function (region or kernel) whose name is at `name_range`, as the model records it."""
        if self._functions is None:
            self._functions = {
                self.range(node.name): node for node in self.positions if isinstance(node, cst.FunctionDef)
            }
        fn = self._functions.get(name_range)
        if fn is None:
            raise Unavailable("no function at the model's position (stale analysis?)")
        return fn

    def find(self, kind: type[N], r: Range) -> N:
        """The node of type `kind` spanning exactly `r`."""
        if self._spanning is None:  # one walk for every fix of the text (fix-all asks for each problem)
            self._spanning = {}
            for node in self.positions:
                self._spanning.setdefault(self.range(node), []).append(node)
        for node in self._spanning.get(r, ()):
            if isinstance(node, kind):
                return node
        raise Unavailable(f"no {kind.__name__} at the model's position (stale analysis?)")

    # -- edits ------------------------------------------------------------------------------

    def replace(self, r: Range, new_text: str) -> TextEdit:
        self._check(r)
        return TextEdit(r, new_text)

    def insert(self, at: Position, new_text: str) -> TextEdit:
        return self.replace(Range(at, at), new_text)

    def permute(self, slots: list[Range], order: list[int]) -> list[TextEdit]:
        """Slot `i` receives the text of slot `order[i]`; the commas and spacing between slots
        stay put. When every slot ends its line, the comment after each (`n: int32[1],  # steps`)
        describes it and moves with it."""
        edits = self._move(slots, order)
        tails = [t for t in map(self._tail, slots) if t is not None]
        if len(tails) == len(slots):
            edits += self._move(tails, order)
        return edits

    def _move(self, slots: list[Range], order: list[int]) -> list[TextEdit]:
        texts = [self.text_at(r) for r in slots]
        return [self.replace(slots[i], texts[j]) for i, j in enumerate(order) if texts[i] != texts[j]]

    def _tail(self, slot: Range) -> Range | None:
        """What follows a slot and its comma to the end of its line: spacing and a comment, or
        nothing; None when something else (another slot, a bracket) follows on the line."""
        line = self.lines[slot.end.line].rstrip()
        comma = _COMMA.match(line, slot.end.column)
        start = comma.end() if comma else slot.end.column
        if line[start:] and not line[start:].lstrip().startswith("#"):
            return None
        return Range(Position(slot.end.line, start), Position(slot.end.line, len(line)))

    def edited(self, edits: list[TextEdit]) -> str:
        """The text with `edits` made: for a fix that judges its edit by analysing the result."""
        text = self.text
        for edit in sorted(self.checked(edits), key=lambda e: e.range.start, reverse=True):
            text = text[: self._offset(edit.range.start)] + edit.new_text + text[self._offset(edit.range.end) :]
        return text

    def checked(self, edits: list[TextEdit]) -> tuple[TextEdit, ...]:
        """The edits in text order; overlapping ones (or two inserts at one place, whose order
        an editor may not keep) mean the fix is confused about the text."""
        ordered = sorted(edits, key=lambda e: (e.range.start, e.range.end))
        for a, b in zip(ordered, ordered[1:]):
            if b.range.start < a.range.end or b.range.start == a.range.start:
                raise Unavailable("overlapping edits")
        if not ordered:
            raise Unavailable("nothing to change")
        return tuple(ordered)
