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
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import PositionProvider

from allo_lsp.analysis.model import Range, SyntaxProblem
from allo_lsp.analysis.parse import MAX_LINE, guard, guard_lines, parse, python_error

_CONTINUATION = re.compile(r"(else|elif|except|finally|case)\b|[)\]}#]")
_MAX_MERGE = 4


@dataclass
class Chunk:
    start: int  # first line in the file, 0-based
    end: int  # line after its last one
    source: str  # its text, by which the next analysis finds it
    module: cst.Module | None  # None: not even a repaired parse (its errors say why)
    positions: dict  # node -> CodeRange, lines relative to the chunk
    errors: list[SyntaxProblem]  # relative to the chunk
    repaired: bool = False  # parsed alone after every merge failed

    def moved(self, delta: int) -> Chunk:
        return replace(self, start=self.start + delta, end=self.end + delta)


@dataclass
class ParseCache:
    """What one document's previous analysis can lend the next: its text's lines and chunks
    (libcst trees with their positions), and the extraction of each module-level statement.
    Only what the latest analysis used is kept."""

    definitions: dict = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)

    def copy(self) -> ParseCache:
        """For the next analysis (lists are replaced, never changed in place)."""
        return ParseCache(dict(self.definitions), self.lines, self.chunks)


class Positions:
    """Node -> (range relative to its chunk, chunk's first line) across all chunks."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self._chunks = [(c.positions, c.start) for c in chunks]
        # Lookups come in runs from one chunk, interleaved with lookups of the few chunks whose
        # bindings it reads (imports, helpers): the chunks hit last are tried first.
        self._recent = [0]
        # Top-level statements are looked up across chunks (binding a whole scope): index them,
        # and the small statements (`x = 1`) of a top-level line too.
        self._owner = {}
        for i, c in enumerate(chunks):
            for stmt in c.module.body:
                self._owner[stmt] = i
                if isinstance(stmt, cst.SimpleStatementLine):
                    self._owner.update((small, i) for small in stmt.body)

    def get(self, node: cst.CSTNode):
        owner = self._owner.get(node)
        if owner is not None:
            table, start = self._chunks[owner]
            self._hit(owner)
            return table[node], start
        for i in self._recent:
            table, start = self._chunks[i]
            found = table.get(node)
            if found is not None:
                self._hit(i)
                return found, start
        for i, (table, start) in enumerate(self._chunks):
            found = table.get(node)
            if found is not None:
                self._hit(i)
                return found, start
        raise KeyError(node)

    def _hit(self, i: int) -> None:
        if self._recent[0] != i:
            self._recent = [i] + [j for j in self._recent if j != i][:3]


def parse_chunks(text: str, cache: ParseCache) -> tuple[list[Chunk], list[SyntaxProblem]]:
    """The chunks that parsed and every syntax problem. With the previous text's chunks in
    `cache`, only the lines around the edit are scanned and parsed again."""
    original = lines = text.split("\n")
    if max(map(len, lines)) > MAX_LINE:
        lines = guard_lines(lines)
    chunks = _edited(lines, cache)
    if chunks is None:
        chunks = _chunk(lines, _scan(lines)[0] + [len(lines)], cache.chunks, True, set())
    assert chunks is not None  # at the end of the file, every merge window is complete
    cache.lines, cache.chunks = lines, chunks
    errors = [SyntaxProblem(e.message, e.range.shifted(c.start)) for c in chunks for e in c.errors]
    if lines is not original:
        errors += _set_aside_errors(original, chunks, {e.range.start.line for e in errors})
    return [c for c in chunks if c.module is not None], errors


def _set_aside_errors(lines: list[str], chunks: list[Chunk], reported: set[int]) -> list[SyntaxProblem]:
    """CPython's syntax error in each chunk whose over-long lines were set aside: a line of a
    thousand unclosed brackets must not vanish with it."""
    out = []
    for c in chunks:
        if not any(len(line) > MAX_LINE for line in lines[c.start : c.end]):
            continue
        found = python_error("\n".join(lines[c.start : c.end]) + "\n")
        if found is None or c.start + found[0] in reported:
            continue
        line, col, message = c.start + found[0], found[1], found[2]
        if line < len(lines):
            out.append(SyntaxProblem(message, Range.of(line, col, line, max(col + 1, min(len(lines[line]), MAX_LINE)))))
    return out


def _edited(lines: list[str], cache: ParseCache) -> list[Chunk] | None:
    """The chunks of `lines`, re-made only over the previous chunks the edit touched (and
    their neighbours): None when that cannot give what a whole scan would."""
    old, chunks = cache.lines, cache.chunks
    if not chunks:
        return None
    limit = min(len(old), len(lines))
    first = next((i for i in range(limit) if old[i] != lines[i]), limit)
    if first == len(old) == len(lines):
        return chunks  # unchanged
    limit -= first
    same_tail = next((i for i in range(limit) if old[-1 - i] != lines[-1 - i]), limit)
    old_end, delta = len(old) - same_tail, len(lines) - len(old)
    # Every chunk within a line of the change: a line appended to one chunk may continue it,
    # and a changed line before a chunk may stop it starting there (a decorator).
    touched = [i for i, c in enumerate(chunks) if c.end > first - 1 and c.start < old_end + 1]
    lo, hi = touched[0], touched[-1] + 1
    # A chunk repaired alone before the span would have tried merging with the edited ones.
    if any(c.repaired for c in chunks[max(lo - _MAX_MERGE, 0) : lo]):
        return None
    start, end = chunks[lo].start, chunks[hi - 1].end + delta
    at_end = hi == len(chunks)
    starts, clean = _scan(lines[start:end])
    if not clean and not at_end:
        return None  # the edit opened a bracket, a string or a decorator past the span
    kept = chunks[:lo] + chunks[hi:]
    middle = _chunk(lines, [start + b for b in starts] + [end], chunks[lo:hi], at_end, {id(c.module) for c in kept})
    if middle is None:
        return None
    return chunks[:lo] + middle + [c.moved(delta) for c in chunks[hi:]]


def _chunk(lines: list[str], bounds: list[int], previous: list[Chunk], at_end: bool,
           taken: set[int]) -> list[Chunk] | None:
    """Parse the lines between `bounds` (chunk starts, then the end), merging a chunk that does
    not parse alone with the next ones; a chunk of `previous` with the same text, parsed the
    same way (whole or repaired), is reused. None when a merge would need a chunk past the end
    and `at_end` is false (the caller then scans the whole file).

    `taken`: the modules other chunks hold. Two chunks of the same text (a duplicated region)
    get a tree each: nodes are keys of positions and of extraction, they cannot be shared."""
    reusable = {(c.source, c.repaired): c for c in previous}

    def reuse(source: str, repaired: bool):
        found = reusable.get((source, repaired))
        if found is None or (found.module is not None and id(found.module) in taken):
            return None
        return found.module, found.positions, found.errors

    chunks: list[Chunk] = []
    i = 0
    while i < len(bounds) - 1:
        parsed, window = None, i + 1 + _MAX_MERGE
        for j in range(i + 1, min(window, len(bounds))):
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            parsed = reuse(source, False) or _parse_whole(source)
            if parsed is not None:
                break
        repaired = parsed is None
        if repaired:
            if window > len(bounds) and not at_end:
                return None
            j = i + 1  # a real syntax error: repair this chunk alone
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            parsed = reuse(source, True) or _parse_repaired(source)
        chunks.append(Chunk(bounds[i], bounds[j], source, *parsed, repaired=repaired))
        taken.add(id(parsed[0]))
        i = j
    return chunks


def statement_prefix(lines: list[str], limit: int) -> int:
    """How many of the first `limit` lines to analyse so that the cut falls between top-level
    statements: a statement cut in two would be a false syntax error, so a first statement
    bigger than the bound (a huge literal, an unclosed string) leaves nothing to analyse."""
    if limit >= len(lines):
        return len(lines)
    starts, clean = _scan(lines[:limit])
    following = lines[limit]
    if clean and following.strip() and following[0] not in " \t" and not _CONTINUATION.match(following):
        return limit
    return starts[-1]


def combine(chunks: list[Chunk]) -> cst.Module:
    """One module over every chunk's statements, for the extractor to walk."""
    return cst.Module(body=[stmt for c in chunks for stmt in c.module.body])


def _scan(lines: list[str]) -> tuple[list[int], bool]:
    """The lines that start a top-level statement, and whether the scan ends clean: outside
    any bracket, string or continuation, and not after a decorator (so the next line's being
    a start depends on that line alone)."""
    inside, open_at_end = _continued_lines(lines)
    starts = [0]
    after_decorator = False
    for n, line in enumerate(lines):
        # A blank line is no statement: `\r` alone is one in a CRLF file, `\f` one PEP 8 allows.
        if not line.strip() or line[0] in " \t" or n in inside or _CONTINUATION.match(line):
            continue
        if n and not after_decorator:
            starts.append(n)
        after_decorator = line.startswith("@")
    return starts, not open_at_end and not after_decorator


# Comments, triple quotes, one-line strings, brackets, backslash-newline, newline.
_TOKEN = re.compile(r"""#[^\n]*|'''|\"\"\"|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[()\[\]{}]|\\\n|\n""")


def _continued_lines(lines: list[str]) -> tuple[set[int], bool]:
    """Lines that start inside a triple-quoted string, an open bracket or after a backslash:
    never a statement boundary, whatever their first column holds. And whether the last line
    leaves one of those open."""
    text = "\n".join(lines) + "\n"
    inside: set[int] = set()
    line = depth = pos = 0
    for m in iter(lambda: _TOKEN.search(text, pos), None):  # noqa: B023 - from where the loop has got to
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
    return inside, len(lines) in inside


def _parse_whole(source: str):
    _, too_deep = guard(source.split("\n"))
    if too_deep is not None:  # libcst would overflow its native stack: the statement is skipped
        return None, {}, [too_deep]
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

