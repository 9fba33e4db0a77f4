"""The document's text as the editor has it: its lines as LSP counts them, and an edit applied as
VS Code applies it to its own text.

Lines end at `\\r\\n`, `\\r` or `\\n` only (`str.splitlines` also breaks at `\\f`, `\\v`,
`\\x1c`-`\\x1e`, `\\x85`, `\\u2028` and `\\u2029`: after a form feed an edit landed lines away
from the client's). A position past the end of a line or of the text is clamped to that end, a
reversed range is swapped. Columns count in the client's units (`units_of` a character).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_BREAK = re.compile(r"\r\n|\r|\n")

Position = tuple[int, int]  # (line, column in the client's units)


def lsp_lines(text: str) -> tuple[str, ...]:
    """The lines of `text`, each with its line break."""
    return tuple(_LINE.findall(text))


def apply_edit(
    text: str, start: Position, end: Position, new: str, units_of: Callable[[str], int] | None
) -> tuple[str, str | None]:
    """(the text after the edit, why it was clamped or swapped, or None). `units_of`: None when
    a column counts code points."""
    (begin, clamped_start), (stop, clamped_end) = (_offset(text, p, units_of) for p in (start, end))
    why = None
    if clamped_start or clamped_end or begin > stop:
        why = "reversed" if begin > stop else "out of range"
    begin, stop = min(begin, stop), max(begin, stop)
    return text[:begin] + new + text[stop:], why


def _line_span(text: str, line: int) -> tuple[int, int] | None:
    """(start, end before its line break) of line `line`, None past the last line. Split at most
    `line` times: the rest of the text starts at that line (no list of every line start: on
    each keystroke of a 100,000-line file that cost 80 ms)."""
    if line == 0:  # (re.split's maxsplit=0 means no limit)
        parts = [text]
    else:
        parts = text.split("\n", line) if "\r" not in text else _BREAK.split(text, maxsplit=line)
    if len(parts) <= line:
        return None
    start = len(text) - len(parts[-1])
    following = _BREAK.search(text, start)
    return start, following.start() if following else len(text)


def _offset(text: str, position: Position, units_of: Callable[[str], int] | None) -> tuple[int, bool]:
    """(offset in `text` of a position, whether it had to be clamped)."""
    line, column = position
    span = _line_span(text, line)
    if span is None:
        return len(text), True
    begin, stop = span
    content = text[begin:stop]
    if content.isascii() or units_of is None:
        return begin + min(column, len(content)), column > len(content)
    units = 0
    for index, char in enumerate(content):
        if units >= column:  # inside a surrogate pair: after it, as pygls does
            return begin + index, False
        units += units_of(char)
    return stop, units < column
