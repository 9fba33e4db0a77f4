"""Issue 13 item 8: no libcst call parses more than a statement's worth of a file, however it is
broken, because libcst holds the GIL for a whole call and every editor request waits for it.

A `\"\"\"` typed at the top of a file opens a string that swallows the rest: the file is one chunk,
whose repair (its first line set aside) used to be parsed whole, 10,000 lines in one call. The
results are what the repair of the whole text gives (`parse.parse`), edit after edit."""

import sys

import libcst
import pytest
from allo_lsp.analysis import ParseCache, analyze, chunks
from allo_lsp.analysis.parse import parse
from allo_lsp.check import region_json
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import generate


def observable(analysis):
    model = analysis.model
    return (
        [(p.code, p.severity, p.range, p.message) for p in analysis.problems],
        [region_json(r) for r in model.regions],
        [(b.region.name, b.range, b.target) for b in model.builds],
        [(c.module, c.region.name, c.range, [a.text for a in c.args]) for c in model.calls],
        [(f.name, f.range) for f in model.functions],
    )


@pytest.fixture
def libcst_calls(monkeypatch):
    """(characters, parsed) of every libcst parse from now on."""
    calls: list[tuple[int, bool]] = []
    real = libcst.parse_module

    def recorded(source, *args, **kwargs):
        try:
            module = real(source, *args, **kwargs)
        except Exception:
            calls.append((len(source), False))
            raise
        calls.append((len(source), True))
        return module

    monkeypatch.setattr(libcst, "parse_module", recorded)
    return calls


def largest_statement(text: str) -> int:
    cache = ParseCache()
    analyze(text, cache=cache)
    return max(len(c.source) for c in cache.chunks)


@pytest.fixture
def small_units(monkeypatch):
    """A bound on what one call parses that a 600-line file is well past (the test stays quick)."""
    monkeypatch.setattr(chunks, "MAX_UNIT_CHARS", 4_000)


def test_a_string_swallowing_the_file_is_parsed_a_statement_at_a_time(libcst_calls, small_units):
    text = generate(600).text
    largest = largest_statement(text)
    flipped = '"""' + text
    libcst_calls.clear()
    analysis = analyze(flipped)
    parsed = [size for size, ok in libcst_calls if ok]
    assert parsed and max(parsed) <= largest, f"a call parsed {max(parsed)} characters"
    # Refused at once (the string is unterminated), the whole text is handed to libcst once.
    assert sum(size >= len(text) for size, _ in libcst_calls) == 1
    # What the repair of the whole text finds (a chunk's text ends with a newline): CPython's
    # error at the first line, set aside.
    (error,) = parse(flipped + "\n").errors
    (problem,) = analysis.problems
    assert (problem.code, problem.range, problem.message) == ("ADF900", error.range, error.message)
    assert "unterminated triple-quoted string literal" in problem.message
    first_set_aside = "\n".join(["pass"] + text.split("\n")[1:])
    assert observable(analysis)[1:] == observable(analyze(first_set_aside))[1:]


def test_a_large_chunk_repaired_again_and_again_is_parsed_a_statement_at_a_time(libcst_calls, small_units):
    """A swallowing string with an error after it: each repair's parse stops at the first
    statement that fails, and CPython says where the next error is, as in a repair of the whole
    text."""
    text = generate(600).text
    lines = text.split("\n")
    # Unterminated: from here the file is one string, until the repair sets this line aside.
    lines[40] = 'BROKEN = """' + lines[40]
    broken = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("def "))
    lines[broken] = lines[broken].replace("def ", "def (", 1)  # a second error, far below
    edited = "\n".join(lines)
    largest = largest_statement(text)
    libcst_calls.clear()
    analysis = analyze(edited)
    assert max(size for size, ok in libcst_calls if ok) <= largest
    found = [(p.range, p.message) for p in analysis.problems if p.code == "ADF900"]
    assert [r.start.line for r, _ in found] == [40, broken]
    # The chunk is the statement holding line 40 and all that follows.
    start = max(n for n in chunks.statement_starts(lines) if n <= 40)
    whole = parse("\n".join(lines[start:]) + "\n").errors
    assert found == [(e.range.shifted(start), e.message) for e in whole]


def test_merges_are_bounded_in_size(libcst_calls, monkeypatch):
    """A chunk that does not parse alone is retried merged with the next ones, unless the merged
    text would be larger than MAX_UNIT_CHARS."""
    monkeypatch.setattr(chunks, "MAX_UNIT_CHARS", 2_000)
    body = "".join(f"    y{k} = {k} + 1\n" for k in range(100))  # a function of about 1,600 characters
    text = "x = 1 +\n" + "".join(f"\ndef f{n}():\n{body}" for n in range(4))
    analysis = analyze(text)
    assert max(size for size, _ in libcst_calls) <= 2_000
    assert [(p.code, p.range.start.line) for p in analysis.problems] == [("ADF900", 0)]
    assert [f.name for f in analysis.model.functions] == ["f0", "f1", "f2", "f3"]


def edits_around_a_swallowing_string(text: str):
    """Open a string at the top, type in the middle, close it lower down, open another."""
    lines = text.split("\n")
    middle = len(lines) // 2
    steps = [
        lambda ls: ['"""' + ls[0]] + ls[1:],
        lambda ls: ls[:middle] + [ls[middle] + "  # typed"] + ls[middle + 1 :],
        lambda ls: ls[:middle] + ["x = ("] + ls[middle:],
        lambda ls: ls[:middle] + ls[middle + 1 :],
        lambda ls: ls[: middle + 20] + ['"""'] + ls[middle + 20 :],
        lambda ls: ls[:5] + ["y = 1 +"] + ls[5:],
        lambda ls: [ls[0][3:]] + ls[1:],
        lambda ls: ls[:middle] + ["s = '''"] + ls[middle:],
    ]
    for step in steps:
        lines = step(lines)
        yield "\n".join(lines)


def test_incremental_equals_full_around_a_split_chunk(small_units):
    text = generate(600).text
    cache = ParseCache()
    analyze(text, cache=cache)
    for step, edited in enumerate(edits_around_a_swallowing_string(text)):
        assert observable(analyze(edited, cache=cache)) == observable(analyze(edited)), f"edit {step}"


_BAD_STREAM = """import allo
from allo.ir.types import float32, Stream
import allo.dataflow as df

N = 16


@df.region()
def top(A: float32[N]):
    s1: Stream[float32, 16]2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: float32[N]):
        for i in range(N):
            s1.put(local_A[i])
"""


def test_a_tokenizer_error_is_placed_where_python_places_it():
    # libcst's tokenizer errors say "line 1, column 0" of the text it refused (here the region,
    # from its decorator): the squiggle belongs on the `]` CPython names, line 10 column 29.
    problems = analyze(_BAD_STREAM).problems
    syntax = [p for p in problems if p.code == "ADF900"]
    assert [(p.range.start.line, p.range.start.column) for p in syntax] == [(9, 28)]
    assert "unmatched ']'" in syntax[0].message
    # The set-aside line declared the stream: its uses are no second error.
    assert not [p for p in problems if p.code == "ADF021"]


@pytest.mark.timeout(3)
def test_unclosed_strings_of_escaped_quotes_are_scanned_in_linear_time():
    """200 lines (each under the 1,000-character bound) holding an unclosed string of 490 `\\"`:
    the old bracket and continuation scans retried the string from each escaped quote (about 8 s
    for this file). The quote is still text: the brackets after it count, 201 of them too many."""
    line = 'x = ("' + '\\"' * 490 + "("
    problems = analyze("import allo\n" + "\n".join([line] * 200) + "\n").problems
    assert [(p.message, p.range.start.line, p.range.start.column) for p in problems] == [
        ("syntax error: too many nested parentheses", 101, 4)
    ]
