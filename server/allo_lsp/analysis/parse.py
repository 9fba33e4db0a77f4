"""Parsing that never fails: a libcst module plus the syntax errors found on the way.

libcst stops at the first syntax error and places it poorly (`def f(:` is reported on the next
line), so the message and position come from CPython's own parser when it agrees, and the offending
line is neutralised (replaced by `pass`, or `if True:` when it opened a block) so that the rest of
the file is still analysed. Line numbers never move: positions in the model stay valid.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

import libcst as cst

from allo_lsp.analysis.model import Range, SyntaxProblem

_MAX_REPAIRS = 12
# libcst is quadratic on long operator chains and overflows its native stack on deep nesting
# (a segfault, not an exception: between 1,000 and 3,000 nested brackets). No Allo design has
# lines this long, so they are set aside up front (and CPython says whether they were valid);
# brackets are refused past CPython's own limit of 200 levels, with CPython's message.
MAX_LINE = 1000
MAX_DEPTH = 200
TOO_DEEP_MESSAGE = "syntax error: too many nested parentheses"
# Brackets, outside comments and strings (a triple quote is followed to its end by hand, a one-line
# string by `OneLineStrings`).
_BRACKET = re.compile(r"""#[^\n]*|'''|\"\"\"|["']|[()\[\]{}]""")
# The rest of a one-line string after its opening quote; group 1 is the closing quote, if any.
_STRING_REST = {q: re.compile(rf"(?:\\.|[^{q}\\\n])*({q})?") for q in "'\""}


class OneLineStrings:
    """Where the one-line strings of `text` end. A quote whose string does not close on its line
    is taken as text (an unterminated string, as a guard may read it). A later quote of the same
    kind before where that scan stopped is escaped in it, so its string cannot close either: it
    is not scanned again (a line of `"\\"\\"\\"...` was rescanned from each quote: quadratic)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._unclosed = {"'": -1, '"': -1}  # where the last unclosed scan of each quote stopped

    def end(self, quote: str, pos: int) -> int | None:
        """The end of the string opened by `quote` just before `pos`; None if it does not close."""
        if pos <= self._unclosed[quote]:
            return None
        rest = _STRING_REST[quote].match(self._text, pos)
        if rest[1] is None:
            self._unclosed[quote] = rest.end()
            return None
        return rest.end()


# PEP 695 generics (`def inner[P0, P1](...)`) are valid Allo but CPython 3.11's parser rejects them.
_PEP695 = re.compile(r"^\s*(async\s+)?(def|class)\s+\w+\s*\[|^\s*type\s+\w+")


@dataclass
class Parsed:
    module: cst.Module | None
    errors: list[SyntaxProblem]


def guard(lines: list[str]) -> tuple[list[str], SyntaxProblem | None]:
    """The lines with over-long ones set aside, and the problem that stops the whole text (a
    chunk, or the file a fix edits) from being parsed, if any."""
    lines = guard_lines(lines)
    deep = _too_deep(lines)
    if deep is not None:
        line, col = deep
        return lines, SyntaxProblem(TOO_DEEP_MESSAGE, Range.of(line, col, line, max(col + 1, len(lines[line]))))
    return lines, None


def guard_lines(lines: list[str]) -> list[str]:
    """The lines with over-long ones neutralised (line numbers never move)."""
    return [_neutralise(line) if len(line) > MAX_LINE else line for line in lines]


# What libcst raises on text it cannot parse (`Repairs.set_aside` says what each means).
PARSE_FAILURES = (cst.ParserSyntaxError, cst.CSTValidationError, RecursionError, MemoryError, ValueError)


def parse(text: str) -> Parsed:
    lines, fatal = guard(text.split("\n"))
    if fatal is not None:
        return Parsed(None, [fatal])
    repairs = Repairs(lines)
    while True:
        try:
            return Parsed(cst.parse_module(repairs.source()), repairs.errors)
        except PARSE_FAILURES as exc:
            if not repairs.set_aside(exc):
                return Parsed(None, repairs.errors)


class Repairs:
    """A text being repaired: its lines, the line blamed for each failed parse set aside in
    turn, and the syntax errors found so far (`parse` is the loop; `chunks` splits a chunk
    whose repair ended its statement early)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.errors: list[SyntaxProblem] = []
        self._failures = 0

    def source(self) -> str:
        return "\n".join(self.lines)

    def set_aside(self, exc: BaseException, offset: int = 0) -> bool:
        """Record the error that made libcst's parse of `source()` fail and set its line aside:
        False when nothing more can be recovered (the text is then left unparsed). `offset`: the
        line of `source()` that the text libcst refused started on."""
        self._failures += 1
        source = self.source()
        if isinstance(exc, cst.ParserSyntaxError):
            line, col, message = _locate(source, exc, offset)
        elif isinstance(exc, cst.CSTValidationError):
            # A name libcst parses but then rejects (a code point newer than its tables, `x = 𮱂`):
            # CPython says where it is; without that, nothing more can be recovered.
            found = python_error(source)
            if found is None:
                self.errors.append(SyntaxProblem(f"syntax error: {exc}", Range.of(0, 0, 0, 0)))
                return False
            line, col, message = found
        else:
            # Deep nesting the parser refuses; nothing more can be recovered from this text.
            self.errors.append(SyntaxProblem("the file is too deeply nested to parse", Range.of(0, 0, 0, 0)))
            return False
        lines = self.lines
        if not 0 <= line < len(lines):
            line = len(lines) - 1
        if not any(e.range.start.line == line for e in self.errors):
            width = max(col + 1, len(lines[line].rstrip()))
            self.errors.append(SyntaxProblem(message, Range.of(line, col, line, width)))
        repaired = _neutralise(lines[line])
        if repaired == lines[line]:
            return False
        lines[line] = repaired
        return self._failures < _MAX_REPAIRS


def _too_deep(lines: list[str]) -> tuple[int, int] | None:
    """Line and column of the first bracket past CPython's nesting limit, brackets in comments
    and strings aside (an unterminated one-line string is taken as text, as a guard may)."""
    text = "\n".join(lines)
    if text.count("(") + text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = pos = 0
    strings = OneLineStrings(text)
    for m in iter(lambda: _BRACKET.search(text, pos), None):  # noqa: B023 - from where the loop has got to
        token, pos = m.group(), m.end()
        if token in ("'", '"'):
            pos = strings.end(token, pos) or pos
        elif token in ("'''", '"""'):
            end = text.find(token, pos)
            pos = len(text) if end < 0 else end + 3
        elif token in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, m.start())
                return line, m.start() - (text.rfind("\n", 0, m.start()) + 1)
        elif token in ")]}":
            depth = max(depth - 1, 0)
    return None


def _locate(source: str, exc: cst.ParserSyntaxError, offset: int = 0) -> tuple[int, int, str]:
    """0-based line and column of the error, with CPython's message when it can be trusted."""
    cst_line = max(exc.raw_line - 1, 0) + offset
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except SyntaxError as err:
        if err.lineno is not None:
            line = err.lineno - 1
            bad_text = (err.text or "").split("\n")[0]
            # libcst's tokenizer errors carry no position (the refused text's first line): then
            # CPython's is the one, if it lies in that text (`s: Stream[T, 16]2]` two lines down).
            placed = line <= cst_line or (exc.message.startswith("tokenizer error") and line >= offset)
            if placed and not _PEP695.match(bad_text):
                return line, max((err.offset or 1) - 1, 0), f"syntax error: {err.msg}"
    except (RecursionError, MemoryError, ValueError):
        pass
    detail = exc.message.split(": ", 2)[-1] if ": " in exc.message else exc.message
    return cst_line, max(exc.raw_column, 0), f"syntax error: {detail}"


def python_error(source: str) -> tuple[int, int, str] | None:
    """0-based line and column of CPython's syntax error in `source`, and its message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except SyntaxError as err:
        if err.lineno is not None:
            return err.lineno - 1, max((err.offset or 1) - 1, 0), f"syntax error: {err.msg}"
    except (RecursionError, MemoryError, ValueError):
        pass
    return None


def _neutralise(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    # Keep a block header a block header, so its body does not become a cascade of errors.
    replacement = "if True:" if line.rstrip().endswith(":") else "pass"
    return indent + replacement
