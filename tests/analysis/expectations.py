"""Expected diagnostics written in a fixture's docstring: `- line 14: ADF012 (why)`."""

import re

from allo_lsp.analysis import Options

_OPTIONS = re.compile(r"^Options: (.+)$", re.M)
_EXPECTED = re.compile(r"\bline (\d+): (ADF\d{3})\b")


def expected_from_docstring(text: str) -> set[tuple[int, str]]:
    """(1-based line, code) pairs under the docstring's "Should emit" heading."""
    doc = text.split('"""')[1] if text.count('"""') >= 2 else ""
    emit = doc.split("Should emit", 1)[1] if "Should emit" in doc else ""
    emit = emit.split("Should not emit", 1)[0]
    return {(int(line), code) for line, code in _EXPECTED.findall(emit)}


def actual(problems) -> set[tuple[int, str]]:
    return {(p.range.start.line + 1, p.code) for p in problems}


def options_from_docstring(text: str) -> Options:
    """`Options: max_chars=900` in the docstring: integer settings other than the defaults."""
    doc = text.split('"""')[1] if text.count('"""') >= 2 else ""
    found = _OPTIONS.search(doc)
    if found is None:
        return Options()
    pairs = (item.split("=", 1) for item in found.group(1).split(","))
    return Options(**{key.strip(): int(value) for key, value in pairs})
