"""Incremental parsing: the file as top-level chunks, each parsed once while its text is unchanged.

While the user types inside one kernel, only the chunk holding that region changes; every other
top-level statement keeps its libcst tree and positions from the previous analysis (`ParseCache`).
A chunk starts at a line that begins a top-level statement (column 0, not a continuation such as
`else:`; decorators stay with their `def`). A chunk that does not parse alone (a string or a
bracket spanning the boundary) is retried merged with the next ones; one that still fails is
repaired alone by `parse.parse`, so a syntax error costs only its own chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider

from allo_lsp.analysis.model import SyntaxProblem
from allo_lsp.analysis.parse import guard, parse

_CONTINUATION = re.compile(r"(else|elif|except|finally|case)\b|[)\]}#]")
_MAX_MERGE = 4


@dataclass
class Chunk:
    start: int  # first line in the file, 0-based
    module: cst.Module
    positions: dict  # node -> CodeRange, lines relative to the chunk
    errors: list[SyntaxProblem]  # relative to the chunk


@dataclass
class ParseCache:
    """What one document's previous analysis can lend the next: chunk text -> (module,
    positions, errors), and the extraction of each module-level definition. Only what the latest
    analysis used is kept."""

    entries: dict[str, tuple] = field(default_factory=dict)
    definitions: dict = field(default_factory=dict)


class Positions:
    """Node -> (range relative to its chunk, chunk's first line) across all chunks."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self._chunks = [(c.positions, c.start) for c in chunks]
        self._last = 0
        # Top-level statements are looked up across chunks (binding a whole scope): index them.
        self._owner = {stmt: i for i, c in enumerate(chunks) for stmt in c.module.body}

    def get(self, node: cst.CSTNode):
        owner = self._owner.get(node)
        if owner is not None:
            self._last = owner
        table, start = self._chunks[self._last]
        found = table.get(node)
        if found is not None:
            return found, start
        for i, (table, start) in enumerate(self._chunks):
            found = table.get(node)
            if found is not None:
                self._last = i  # lookups come in runs from one chunk
                return found, start
        raise KeyError(node)


def parse_chunks(text: str, cache: ParseCache) -> tuple[list[Chunk], list[SyntaxProblem]]:
    lines, fatal = guard(text.split("\n"))
    if fatal is not None:
        return [], [fatal]
    bounds = _boundaries(lines) + [len(lines)]
    chunks: list[Chunk] = []
    errors: list[SyntaxProblem] = []
    entries: dict[str, tuple] = {}
    i = 0
    while i < len(bounds) - 1:
        parsed = None
        for j in range(i + 1, min(i + 1 + _MAX_MERGE, len(bounds))):
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            parsed = entries.get(source) or cache.entries.get(source) or _parse_whole(source)
            if parsed is not None:
                entries[source] = parsed
                break
        if parsed is None:  # a real syntax error: repair this chunk alone
            j = i + 1
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            parsed = cache.entries.get(source) or _parse_repaired(source)
            entries[source] = parsed
        module, positions, chunk_errors = parsed
        if module is not None:
            chunks.append(Chunk(bounds[i], module, positions, chunk_errors))
        errors += [SyntaxProblem(e.message, e.range.shifted(bounds[i])) for e in chunk_errors]
        i = j
    cache.entries = entries
    return chunks, errors


def combine(chunks: list[Chunk]) -> cst.Module:
    """One module over every chunk's statements, for the extractor to walk."""
    return cst.Module(body=[stmt for c in chunks for stmt in c.module.body])


def _boundaries(lines: list[str]) -> list[int]:
    inside = _continued_lines(lines)
    starts = [0]
    after_decorator = False
    for n, line in enumerate(lines):
        # A blank line is no statement: `\r` alone is one in a CRLF file, `\f` one PEP 8 allows.
        if not line.strip() or line[0] in " \t" or n in inside or _CONTINUATION.match(line):
            continue
        if n and not after_decorator:
            starts.append(n)
        after_decorator = line.startswith("@")
    return starts


# Comments, triple quotes, one-line strings, brackets, backslash-newline, newline.
_TOKEN = re.compile(r"""#[^\n]*|'''|\"\"\"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[()\[\]{}]|\\\n|\n""")


def _continued_lines(lines: list[str]) -> set[int]:
    """Lines that start inside a triple-quoted string, an open bracket or after a backslash:
    never a statement boundary, whatever their first column holds."""
    text = "\n".join(lines)
    inside: set[int] = set()
    line = depth = pos = 0
    for m in iter(lambda: _TOKEN.search(text, pos), None):
        token, pos = m.group(), m.end()
        if token == "\n":
            line += 1
            if depth > 0:
                inside.add(line)
        elif token == "\\\n":
            line += 1
            inside.add(line)
        elif token in ('"""', "'''"):
            end = text.find(token, pos)
            end = len(text) if end < 0 else end + 3
            for _ in range(text.count("\n", pos, end)):
                line += 1
                inside.add(line)
            pos = end
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth = max(depth - 1, 0)
    return inside


def _parse_whole(source: str):
    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, cst.CSTValidationError, RecursionError, ValueError):
        return None
    return module, positions(module), []


def _parse_repaired(source: str):
    parsed = parse(source)
    if parsed.module is None:
        return None, {}, parsed.errors
    return parsed.module, positions(parsed.module), parsed.errors


def positions(module: cst.Module) -> dict:
    """Node -> CodeRange. `MetadataWrapper.resolve` would also walk every node once more; the
    provider's own code generation pass is all positions need (libcst is pinned below 2)."""
    provider = PositionProvider()
    provider._gen_impl(module)
    return provider._computed

