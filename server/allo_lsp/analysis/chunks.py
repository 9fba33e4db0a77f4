"""Incremental parsing: the file as top-level chunks, each parsed once while its text is unchanged.

While the user types inside one kernel, only the chunk holding that region changes; every other
top-level statement keeps its libcst tree and positions from the previous analysis (`ParseCache`).
A chunk starts at a line that begins a top-level statement (column 0, not a continuation such as
`else:`; decorators stay with their `def`). A chunk that does not parse alone (a string or a
bracket spanning the boundary) is retried merged with the next ones; one that still fails is
repaired alone (`parse.Repairs`), so a syntax error costs only its own chunk.

libcst's parser holds the GIL for a whole call (about 0.3 s per 1,000 lines of a loaded machine),
and every editor request waits for it: so no call parses more than a statement's worth. Merges
are bounded in size, and a repair that ends a chunk's statement early (the line that opened a
string or bracket swallowing the rest of the file set aside) chunks what follows again instead
of parsing it whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import libcst as cst

from allo_lsp.analysis import splice
from allo_lsp.analysis.model import Range, SyntaxProblem
from allo_lsp.analysis.parse import (
    MAX_LINE,
    PARSE_FAILURES,
    OneLineStrings,
    Repairs,
    guard,
    guard_lines,
    python_error,
)
from allo_lsp.analysis.position_pass import positions

_CONTINUATION = re.compile(r"(else|elif|except|finally|case)\b|[)\]}#]")
_MAX_MERGE = 4
# What one libcst call may parse, as far as the text allows (a single statement is parsed whole):
# about 0.1 s. A merge is for a string or bracket the scan missed across a boundary, between
# statements of a few lines: a bigger one is not tried.
MAX_UNIT_CHARS = 32_000


@dataclass
class Chunk:
    start: int  # first line in the file, 0-based
    end: int  # line after its last one
    source: str  # its text, by which the next analysis finds it
    module: cst.Module | None  # None: not even a repaired parse (its errors say why)
    positions: dict  # node -> CodeRange, lines relative to the chunk
    errors: list[SyntaxProblem]  # relative to the chunk
    repaired: bool = False  # parsed alone after every merge failed
    # Made by splitting a chunk whose repair ended its statement early (`_repaired`): its bounds
    # are not where a scan of the text would put them, so an edit near it chunks the file again.
    split: bool = False
    # The first chunk of a split holds the errors of the repair that split it (relative to it).
    split_errors: list[SyntaxProblem] = field(default_factory=list)

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
    errors = [SyntaxProblem(e.message, e.range.shifted(c.start)) for c in chunks for e in c.split_errors + c.errors]
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
    # A chunk repaired alone before the span would have tried merging with the edited ones; a
    # split one's bounds are the repair's, and its repair may go otherwise after the edit.
    if any(c.repaired or c.split for c in chunks[max(lo - _MAX_MERGE, 0) : lo]) or any(c.split for c in chunks[lo:hi]):
        return None
    start, end = chunks[lo].start, chunks[hi - 1].end + delta
    at_end = hi == len(chunks)
    starts, clean = _scan(lines[start:end])
    if not clean and not at_end:
        return None  # the edit opened a bracket, a string or a decorator past the span
    if hi - lo == 1 and starts == [0] and clean:
        inside = _inside(chunks[lo], lines[start:end], first - start)
        if inside is not None:
            return chunks[:lo] + [inside] + [c.moved(delta) for c in chunks[hi:]]
    kept = chunks[:lo] + chunks[hi:]
    middle = _chunk(lines, [start + b for b in starts] + [end], chunks[lo:hi], at_end, {id(c.module) for c in kept})
    if middle is None:
        return None
    return chunks[:lo] + middle + [c.moved(delta) for c in chunks[hi:]]


def _inside(chunk: Chunk, lines: list[str], first: int) -> Chunk | None:
    """The chunk with its new `lines` (changed from its line `first` on), when the edit stays
    inside one nested statement: that statement alone parsed again (`splice`)."""
    if chunk.module is None or chunk.errors or chunk.repaired or chunk.split:
        return None
    source = "\n".join(lines) + "\n"
    if guard(source.split("\n"))[1] is not None:
        return None  # as deep as `_parse_whole` refuses: the whole chunk's parse says so
    done = splice.reparsed(
        chunk.module, chunk.positions, chunk.source.split("\n"), source.split("\n"), first, positions
    )
    if done is None:
        return None
    return Chunk(chunk.start, chunk.start + len(lines), source, *done, [])


def _chunk(
    lines: list[str], bounds: list[int], previous: list[Chunk], at_end: bool, taken: set[int]
) -> list[Chunk] | None:
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
        parsed, alone, window = None, None, i + 1 + _MAX_MERGE
        for j in range(i + 1, min(window, len(bounds))):
            if j > i + 1 and _size(lines, bounds[i], bounds[j]) > MAX_UNIT_CHARS:
                window = j  # as if the file ended here: no bigger merge is tried
                break
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            parsed = reuse(source, False)
            if parsed is None:
                parsed, failure = _parse_whole(source)
                alone = failure if j == i + 1 else alone
            if parsed is not None:
                break
        if parsed is not None:
            made = [Chunk(bounds[i], bounds[j], source, *parsed)]
        else:
            if window > len(bounds) and not at_end:
                return None
            j = i + 1  # a real syntax error: repair this chunk alone
            source = "\n".join(lines[bounds[i] : bounds[j]]) + "\n"
            found = reuse(source, True)
            if found is not None:
                made = [Chunk(bounds[i], bounds[j], source, *found, repaired=True)]
            else:
                made = _repaired(lines[bounds[i] : bounds[j]], bounds[i], alone, previous, taken)
        chunks += made
        taken.update(id(c.module) for c in made)
        i = j
    return chunks


def _size(lines: list[str], start: int, end: int) -> int:
    return sum(map(len, lines[start:end])) + end - start


def _repaired(
    lines: list[str], start: int, failure: BaseException, previous: list[Chunk], taken: set[int]
) -> list[Chunk]:
    """The chunk of `lines` (starting at line `start` of the file), which parses neither alone
    nor merged, repaired as `parse.parse` repairs a text; `failure` is why libcst refused it.

    A large chunk (a string or a bracket that swallowed the rest of the file) is parsed one
    statement at a time once its repairs leave several: the same tree and errors as one parse
    of it (statements separated by a clean scan parse alone or not at all, and the first one
    that does not is where a parse of the whole stops), without one long call."""
    source = "\n".join(lines) + "\n"
    repairs = Repairs(source.split("\n"))
    offset = 0  # the line where the text `failure` is about starts
    while repairs.set_aside(failure, offset):
        if len(source) > MAX_UNIT_CHARS and repairs.lines[-1] == "":  # the last line was not set aside
            made, failed = _statements(repairs.lines[:-1], previous, taken)
            if made is not None:
                # The first chunk starts where this one did: it reports the repair's errors.
                made[0] = replace(made[0], split_errors=repairs.errors)
                return [replace(c.moved(start), split=True) for c in made]
            if failed is not None:
                failure, offset = failed
                continue
        try:
            module = cst.parse_module(repairs.source())
        except PARSE_FAILURES as exc:
            failure, offset = exc, 0
            continue
        return [Chunk(start, start + len(lines), source, module, positions(module), repairs.errors, repaired=True)]
    return [Chunk(start, start + len(lines), source, None, {}, repairs.errors, repaired=True)]


def _statements(lines: list[str], previous: list[Chunk], taken: set[int]):
    """The top-level statements of `lines` as chunks, each parsed alone; or None and what
    libcst's parse of all `lines` would raise, with the line its position counts from (None
    when only that parse can tell)."""
    reusable = {c.source: c for c in previous if not c.repaired}
    bounds = _scan(lines)[0] + [len(lines)]
    made, mine = [], set()
    for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
        source = "\n".join(lines[a:b]) + "\n"
        found = reusable.get(source)
        if (
            found is not None
            and found.module is not None
            and id(found.module) not in taken
            and id(found.module) not in mine
        ):
            parsed = found.module, found.positions, found.errors
            mine.add(id(found.module))
        else:
            parsed, failure = _parse_whole(source)
            if parsed is None:
                return None, _failure_of_all(lines, bounds[k:], failure)
        made.append(Chunk(a, b, source, *parsed))
    return made, None


def _failure_of_all(lines: list[str], bounds: list[int], failure: BaseException) -> tuple[BaseException, int] | None:
    """What libcst's parse of all `lines` raises, and the line its position counts from, when
    the statements before `bounds[0]` parse and the one there raised `failure` alone.

    libcst tokenizes the whole text before it parses, and reports a tokenizer error (the first
    one, at the text's start) before any parser error, which may come from a later statement.
    A parser error is where the parse of that statement stops, or at the first token after it
    (a block header whose body is missing): the statement and the next one say which."""
    first = bounds[0]
    if _tokenizer_error(failure):
        return failure, 0
    try:
        cst.parse_module("in\n" + "\n".join(lines[first:]) + "\n")  # tokenized, then refused at once
    except cst.ParserSyntaxError as exc:
        if _tokenizer_error(exc):
            return exc, 0
    if len(bounds) > 2:
        try:
            cst.parse_module("\n".join(lines[first : bounds[2]]) + "\n")
        except PARSE_FAILURES as exc:
            return exc, first
        return None  # the two parse together (the scan misjudged the boundary): only a parse of all says
    return failure, first


def _tokenizer_error(exc: BaseException) -> bool:
    return isinstance(exc, cst.ParserSyntaxError) and exc.message.startswith("tokenizer error")


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


def statement_starts(lines: list[str]) -> list[int]:
    """The lines that start a top-level statement (the first line always does)."""
    return _scan(lines)[0]


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
_TOKEN = re.compile(r"""#[^\n]*|'''|\"\"\"|["']|[()\[\]{}]|\\\n|\n""")  # one-line strings: OneLineStrings


def _continued_lines(lines: list[str]) -> tuple[set[int], bool]:
    """Lines that start inside a triple-quoted string, an open bracket or after a backslash:
    never a statement boundary, whatever their first column holds. And whether the last line
    leaves one of those open."""
    text = "\n".join(lines) + "\n"
    inside: set[int] = set()
    line = depth = pos = 0
    strings = OneLineStrings(text)
    for m in iter(lambda: _TOKEN.search(text, pos), None):  # noqa: B023 - from where the loop has got to
        token, pos = m.group(), m.end()
        if token in ("'", '"'):
            pos = strings.end(token, pos) or pos
        elif token == "\n":
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
    """(module, positions, errors) of `source` parsed as it is, or None and why libcst refused it."""
    _, too_deep = guard(source.split("\n"))
    if too_deep is not None:  # libcst would overflow its native stack: the statement is skipped
        return (None, {}, [too_deep]), None
    try:
        module = cst.parse_module(source)
    except PARSE_FAILURES as exc:
        return None, exc
    return (module, positions(module), []), None
