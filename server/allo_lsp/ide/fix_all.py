"""Every fix of a file at once: `allo-lsp check --fix` and the editor's fix-all
(`source.fixAll.allo-lsp`, on save with `editor.codeActionsOnSave`). Ruff is the model.

Only safe fixes unless asked (`Fix.safe`); display-only fixes never (`Fix.display_only`). A fix's
edits are computed on the text of its round, so the fixes of one round must not change what
another one read: they never overlap, and they touch disjoint units (the innermost function
holding an edit: a kernel, a region's own lines, a test function; else the top-level statement),
unless both are a single edit. The reorder and the scalar fix of one region both edit its `def`
and its calls: applied together, the scalar's `[1]` landed on the parameter the reorder put in
its place. Moving `mapping=` first in ten kernels of one region is one round. The others wait:
the file is analysed again and the next round fixes what is left, up to `MAX_PASSES`, stopping
when a round gives back a text already seen (two fixes that undo each other). A round whose
result has more syntax errors than its input is not kept: a fix never breaks the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from allo_lsp.analysis import Analysis, Options, ParseCache, analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.code_actions import available_fixes
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import CodeAction, TextEdit

MAX_PASSES = 32  # a round per fix of one unit; a bound, whatever the fixes do
KIND = "source.fixAll.allo-lsp"
TITLE = "Fix all auto-fixable problems (allo-lsp)"


@dataclass(frozen=True)
class Fixed:
    text: str
    analysis: Analysis  # of `text`
    applied: int  # the problems whose fix was applied


@dataclass(frozen=True)
class Fixable:
    safe: int  # problems with a safe fix
    unsafe: int  # problems with an unsafe one only


def fixable(text: str, analysis: Analysis) -> Fixable:
    fixes = [fix for _, fix, _ in available_fixes(text, analysis, analysis.problems) if not fix.display_only]
    safe = sum(fix.safe for fix in fixes)
    return Fixable(safe, len(fixes) - safe)


def fix_all(
    text: str, options: Options, unsafe: bool = False, analysis: Analysis | None = None, cache: ParseCache | None = None
) -> Fixed:
    """`text` with its fixes applied; `analysis`: that of `text` with `options`, if at hand, and
    `cache` the parse cache of `text` (not changed: a copy follows the passes), so that each pass
    parses again only the statements its fixes changed (on save, in an editor's time limit)."""
    cache = cache.copy() if cache is not None else ParseCache()
    analysis = analysis if analysis is not None else analyze(text, options, cache)
    applied, seen = 0, {text}
    for _ in range(MAX_PASSES):
        edits, count = _one_pass(text, analysis, unsafe)
        if not count:
            break
        new_text = apply_edits(text, edits)
        if new_text in seen:
            break
        new_analysis = analyze(new_text, options, cache)
        if len(new_analysis.model.syntax_errors) > len(analysis.model.syntax_errors):
            break
        text, analysis, applied = new_text, new_analysis, applied + count
        seen.add(text)
    return Fixed(text, analysis, applied)


def _one_pass(text: str, analysis: Analysis, unsafe: bool) -> tuple[list[TextEdit], int]:
    """The edits of one round's fixes, and how many problems they fix (ADF001 and ADF002 on one
    parameter have the same edits: one change fixes both)."""
    source = Source.of(text)
    taken: list[TextEdit] = []
    groups: list[tuple[TextEdit, ...]] = []
    claimed: list[tuple[set[tuple[int, int]], bool]] = []  # each taken fix's units, and whether it is one edit
    count = 0
    for _, fix, edits in available_fixes(text, analysis, analysis.problems):
        if fix.display_only or not (fix.safe or unsafe):
            continue
        if edits in groups:
            count += 1
            continue
        units = {source.unit_at(line) for e in edits for line in (e.range.start.line, e.range.end.line)}
        single = len(edits) == 1
        if any(units & other and not (single and alone) for other, alone in claimed):
            continue
        if not any(_overlap(a.range, b.range) for a in edits for b in taken):
            taken += edits
            groups.append(edits)
            claimed.append((units, single))
            count += 1
    return taken, count


def _overlap(a: Range, b: Range) -> bool:
    # Two inserts at one place overlap too: their order is not defined.
    return a.start < b.end and b.start < a.end or a.start == b.start


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """`text` with non-overlapping `edits` (code-point columns, `\\n` lines) applied."""
    starts, offset = [], 0
    for line in text.split("\n"):
        starts.append(offset)
        offset += len(line) + 1
    for edit in sorted(edits, key=lambda e: (e.range.start, e.range.end), reverse=True):
        start = starts[edit.range.start.line] + edit.range.start.column
        end = starts[edit.range.end.line] + edit.range.end.column
        text = text[:start] + edit.new_text + text[end:]
    return text


def fix_all_actions(
    text: str, options: Options, analysis: Analysis, only: list[str] | None, cache: ParseCache | None = None
) -> list[CodeAction]:
    """The fix-all action, when the client asks for its kind (`only`: `source`, `source.fixAll`
    or ours). Never for a request without `only` (the lightbulb at each move of the cursor):
    it analyses the file again for each pass."""
    if not only or not any(wanted(KIND, [k]) for k in only):
        return []
    fixed = fix_all(text, options, analysis=analysis, cache=cache)
    if fixed.text == text:
        return []
    return [CodeAction(TITLE, KIND, (changed_span(text, fixed.text),))]


def wanted(kind: str, only: list[str] | None) -> bool:
    """Whether an action of `kind` answers a request for `only` (LSP: a kind is asked for by
    itself or any prefix of its dot-separated parts)."""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def changed_span(old: str, new: str) -> TextEdit:
    """One edit from `old` to `new`: what lies between their common beginning and end."""
    head = len(os.path.commonprefix([old, new]))
    room = min(len(old), len(new)) - head
    tail = len(os.path.commonprefix([old[::-1][:room], new[::-1][:room]]))
    return TextEdit(Range(_position(old, head), _position(old, len(old) - tail)), new[head : len(new) - tail])


def _position(text: str, offset: int) -> Position:
    line = text.count("\n", 0, offset)
    return Position(line, offset - (text.rfind("\n", 0, offset) + 1))
