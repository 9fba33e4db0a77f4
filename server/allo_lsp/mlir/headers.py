"""Reduce an Allo MLIR dump to its function headers, for bindings that lack the `allo` dialect.

`str(df.customize(top).module)` prints Allo's ops in their custom form (`allo.stream_put %0, %v`).
Only Allo's own bindings parse that: upstream bindings reject a custom op of an unknown dialect even
with unregistered dialects allowed, and refuse an unregistered type such as `!allo.Fixed<12, 4>` as a
memref element. Signatures are all this package reads, so `reduce` replaces each function body by
one generic op (keeping its line breaks, so the line numbers of later errors stay right) and each
`!allo.` type by a placeholder vector type that `restore` maps back.
"""

from __future__ import annotations

import re

ELIDED = '"allo.elided"() : () -> ()'  # an unregistered op may end a block: no terminator needed
_ALLO_TYPE = re.compile(r"!allo\.[\w.]+")


def reduce(text: str) -> tuple[str, dict[str, str]]:
    """The text with bodies elided and `!allo.` types replaced; placeholder -> original type."""
    return _replace_allo_types(_elide_bodies(text))


def restore(type_text: str, placeholders: dict[str, str]) -> str:
    for placeholder, original in placeholders.items():
        type_text = type_text.replace(placeholder, original)
    return type_text


def _code(text: str, i: int = 0):
    """Indices of the characters outside string literals and `//` comments, from `i` on."""
    n = len(text)
    while i < n:
        if text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return
        else:
            yield i
            i += 1


def _closing_brace(text: str, i: int) -> int | None:
    depth = 0
    for j in _code(text, i):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return None


def _after_keyword(text: str, i: int, keyword: str) -> bool:
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    start = j + 1 - len(keyword)
    return text.startswith(keyword, start) and (start == 0 or text[start - 1].isspace())


def _elide_bodies(text: str) -> str:
    """`func.func @f(...) attributes {...} { body }` -> `... { "allo.elided"() ... }`."""
    pieces, copied, resume = [], 0, 0
    in_header, depth = False, 0  # depth: parentheses and brackets inside the header
    for i in _code(text):
        if i < resume:
            continue
        c = text[i]
        if text.startswith("func.func", i):
            in_header, depth = True, 0
        elif not in_header:
            continue
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == "}":  # a body-less declaration, then the enclosing module closes
            in_header = False
        elif depth == 0 and c == "{":
            end = _closing_brace(text, i)
            if end is None:  # unbalanced: leave it to the parser to report
                break
            resume = end + 1
            if _after_keyword(text, i, "attributes"):
                continue
            pieces += [text[copied : i + 1], f" {ELIDED} ", "\n" * text.count("\n", i, end)]
            copied, in_header = end, False
    return "".join(pieces) + text[copied:]


def _type_end(text: str, i: int) -> int:
    """The end of a type's `<...>` parameters starting at `i`, if any."""
    if not text.startswith("<", i):
        return i
    depth = 0
    for j in range(i, len(text)):
        depth += {"<": 1, ">": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1
    return len(text)


def _replace_allo_types(text: str) -> tuple[str, dict[str, str]]:
    by_type: dict[str, str] = {}
    pieces, copied = [], 0
    for m in _ALLO_TYPE.finditer(text):
        if m.start() < copied:  # inside a type already replaced
            continue
        end = _type_end(text, m.end())
        original = text[m.start() : end]
        placeholder = by_type.setdefault(original, f"vector<{len(by_type) + 1}x7x5x3xi1>")
        pieces += [text[copied : m.start()], placeholder]
        copied = end
    return "".join(pieces) + text[copied:], {p: t for t, p in by_type.items()}
