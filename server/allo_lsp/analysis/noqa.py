"""Suppression comments, read as Ruff reads its own.

`# noqa: ADF005, ADF006` at the end of a line hides those codes on that line (a problem belongs to
the line it starts on); a bare `# noqa` hides every code there. `# allo-lsp: noqa: ADF005` on a
line of its own hides the code in the whole file, a bare `# allo-lsp: noqa` every code. Codes of
other tools in the same comment (`# noqa: E501, ADF005`) are left to them. A syntax error
(ADF900) is never hidden: nothing else about the file holds until it is fixed.

Only real comments count: a `# noqa` inside a string is text. String literals are stepped over
with a regular expression per kind, faster than `tokenize` (10 ms against 120 ms on 8,400 lines)
and working on text that does not parse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from allo_lsp.analysis.problems import Problem

NEVER_HIDDEN = frozenset({"ADF900"})

# Where a comment or a string literal may start; each string is then stepped over by one match
# of its kind's end (a single-quoted one ends at its line's end if unclosed, as the tokenizer gives up).
_START = re.compile(r"[#'\"]")
_ENDS = {q: re.compile(rf"(?:\\[\s\S]|[^{q}\\\n])*(?:{q}|$|\\\Z)", re.M) for q in "'\""}
_TRIPLE_ENDS = {q: re.compile(rf"(?:\\[\s\S]|[^\\])*?(?:{q * 3}|\\?\Z)") for q in "'\""}
# Between two codes, spacing with at most one comma in it, read one way only: `\s*,?\s*` could split
# a run of spaces between its two halves every way: a noqa comment of ADF005 then 60,000 spaces took 34 s.
_CODES = r"(?P<codes>[A-Z]+[0-9]+(?:\s*(?:,\s*)?[A-Z]+[0-9]+)*)"
_LINE = re.compile(rf"#\s*noqa(?!\w)(?::\s*{_CODES})?", re.I)
_FILE = re.compile(rf"#\s*allo-lsp\s*:\s*noqa(?!\w)(?::\s*{_CODES})?", re.I)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.I)


@dataclass(frozen=True)
class Comment:
    line: int
    column: int  # of its `#`
    text: str
    own_line: bool  # nothing but spacing before it


def comments(text: str, about: str = "") -> list[Comment]:
    """The comments of `text` (lines separated by `\\n`), in order; with `about`, only those that
    mention it (any case)."""
    out = []
    at, line, counted = 0, 0, 0
    while (found := _START.search(text, at)) is not None:
        start, char = found.start(), found.group()
        if char != "#":
            triple = text.startswith(char * 3, start)
            at = (_TRIPLE_ENDS if triple else _ENDS)[char].match(text, start + (3 if triple else 1)).end()
            continue
        end = text.find("\n", start)
        at = end = len(text) if end < 0 else end
        if about and about not in text[start:end].lower():
            continue
        line += text.count("\n", counted, start)
        counted = start
        line_start = text.rfind("\n", 0, start) + 1
        out.append(Comment(line, start - line_start, text[start:end], not text[line_start:start].strip()))
    return out


@dataclass(frozen=True)
class Noqa:
    """The suppressions of one text. A value of None: every code."""

    lines: dict[int, frozenset[str] | None]
    file: frozenset[str] | None = frozenset()

    @staticmethod
    def of(text: str) -> Noqa:
        if "noqa" not in text.lower():  # most files: no scan at all
            return Noqa({})
        lines: dict[int, frozenset[str] | None] = {}
        file: frozenset[str] | None = frozenset()
        for comment in comments(text, "noqa"):
            if comment.own_line and (found := _FILE.match(comment.text)):
                file = None if file is None else _merged(file, _codes(found))
            elif found := _LINE.search(comment.text):
                lines[comment.line] = _merged(lines.get(comment.line, frozenset()), _codes(found))
        return Noqa(lines, file)

    def hides(self, problem: Problem) -> bool:
        if problem.code in NEVER_HIDDEN:
            return False
        for codes in (self.file, self.lines.get(problem.range.start.line, frozenset())):
            if codes is None or problem.code in codes:
                return True
        return False


def _codes(found: re.Match) -> frozenset[str] | None:
    codes = found.group("codes")
    return None if codes is None else frozenset(c.upper() for c in _CODE.findall(codes))


def _merged(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    return None if a is None or b is None else a | b


def unsuppressed(problems: list[Problem], text: str) -> list[Problem]:
    """`problems` less those a noqa comment of `text` hides."""
    noqa = Noqa.of(text)
    if not noqa.lines and noqa.file == frozenset():
        return problems
    return [p for p in problems if not noqa.hides(p)]


@dataclass(frozen=True)
class Directive:
    """Where a line's `# noqa` comment is, for an edit that adds a code to it."""

    comment: Comment
    codes_end: int | None  # the column after its last code; None: bare (no codes)


def directive(comment: Comment) -> Directive | None:
    """The noqa directive of a comment that ends a line of code, if it is one."""
    match = None if comment.own_line else _LINE.search(comment.text)
    if match is None:
        return None
    end = match.end("codes") if match.group("codes") is not None else None
    return Directive(comment, None if end is None else comment.column + end)
