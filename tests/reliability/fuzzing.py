"""Fuzzing the analysis: mutated example programs in, no exception and a bounded time out.

Shared by the CI test (`tests/reliability/test_fuzz_analysis.py`, a few hundred cases) and the
full run (`bench/reliability/fuzz.py`, 100,000 cases). A case is one of the example programs
(`examples/*.py`, `tests/analysis/fixtures/*.py`, or all of them concatenated to 2,000 lines)
with one to four mutations applied in order: truncation, token and line deletion, duplication
and swaps, random unicode, huge literals, deep nesting, 1 MB lines, odd line terminators.
Mutations are hypothesis strategies, so a failing case shrinks to a short list of operations.

`check_case` then runs what the editor runs on that text:
- `analyze` (timed; the goal is under 100 ms for files up to 2,000 lines), with and without the
  parse cache of the unmutated text when the analysis has one (the results must be equal);
- the editor's view while typing: `DocumentAnalysis.build` with the base text's analysis as the
  previous one (the "last good" analysis moved line by line), as the server does;
- every `ide` feature at random positions: hover, definition, references, symbols, inlay hints,
  code actions (each edit must apply inside the text), lenses and run actions;
- the LSP conversion (UTF-16 columns) of everything above, and `allo-lsp check`'s renderers.
Any exception, or a range outside the text, is a `Failure`.
"""

from __future__ import annotations

import json
import random
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

from allo_lsp.analysis import Options, analyze, lsp_newlines  # noqa: E402
from allo_lsp.analysis.model import Position, Range  # noqa: E402
from allo_lsp.ide.code_actions import code_actions  # noqa: E402
from allo_lsp.ide.document import DocumentAnalysis, position_back, range_forward  # noqa: E402
from allo_lsp.ide.hover import hover  # noqa: E402
from allo_lsp.ide.inlay_hints import inlay_hints  # noqa: E402
from allo_lsp.ide.lenses import code_lenses, run_actions  # noqa: E402
from allo_lsp.ide.navigation import definition, references  # noqa: E402
from allo_lsp.ide.symbols import document_symbols  # noqa: E402

MAX_LINES = 2000
TIME_LIMIT_S = 0.100  # per analysis, files up to MAX_LINES lines

# -- the corpus ---------------------------------------------------------------------------------


def _corpus() -> dict[str, str]:
    files = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "tests" / "analysis" / "fixtures").glob("*.py"))
    corpus = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files}
    # One large file: everything concatenated (regions repeat: the analysis must cope), cut at
    # MAX_LINES lines.
    lines: list[str] = []
    while len(lines) < MAX_LINES:
        for text in corpus.values():
            lines += text.split("\n")
    corpus["<all examples, 2000 lines>"] = "\n".join(lines[:MAX_LINES])
    return corpus


CORPUS = _corpus()
NAMES = sorted(CORPUS)

# -- mutations ----------------------------------------------------------------------------------

_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
# Tokens worth inserting: what Allo designs and Python syntax are made of.
VOCABULARY = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ":",
    ",",
    ".",
    "=",
    "==",
    "@",
    "*",
    "**",
    "-",
    "+",
    "/",
    "//",
    "%",
    "\n",
    "\n    ",
    "\\\n",
    "    ",
    "\t",
    "#",
    "'",
    '"',
    '"""',
    "'''",
    "f'{",
    "}'",
    "b'",
    ";",
    "->",
    ":=",
    "def",
    "class",
    "return",
    "for",
    "in",
    "if",
    "else",
    "elif",
    "while",
    "with",
    "lambda",
    "yield",
    "import",
    "from",
    "as",
    "pass",
    "not",
    "and",
    "or",
    "None",
    "True",
    "False",
    "async",
    "await",
    "global",
    "nonlocal",
    "del",
    "try:",
    "except",
    "finally:",
    "raise",
    "assert",
    "match",
    "case",
    "df",
    "allo",
    "@df.region()",
    "@df.kernel(",
    "mapping=",
    "args=",
    "args=[",
    "mapping=[1]",
    "mapping=[2, 2]",
    "Stream[",
    "Stream[int32, 4]",
    ".put(",
    ".get()",
    "get_pid()",
    "allo.meta_if(",
    "allo.meta_else()",
    "allo.meta_for(",
    "allo.grid(",
    "int32",
    "float32",
    "UInt(",
    "Fixed(",
    "int32[",
    "int32[16]",
    "int32[M, N]",
    "[S(0), R]",
    "df.build(",
    "target=",
    "'simulator'",
    "mod(",
    "top",
    "A",
    "B",
    "n",
    "local_A",
    "0",
    "1",
    "-1",
    "16",
    "0.5",
    "1e9",
    "10**6",
]
HUGE_LITERALS = [
    "9" * 5000,
    "9" * 100_000,
    "1e" + "9" * 400,
    "0x" + "f" * 5000,
    "0b" + "1" * 20_000,
    "'" + "x" * 100_000 + "'",
    '"""' + "y\n" * 3000 + '"""',
    "10**10**10",
    "2**99999",
    "(1 << 10**9)",
    "[0] * 10**9",
    "'a' * 10**10",
    "int32[10**18, 10**18]",
    "int32[2**62]",
    "int32[-5]",
    "int32[0]",
    "mapping=[10**9, 10**9]",
    "mapping=[-3]",
    "mapping=[0]",
    "mapping=[2**64]",
    "Stream[int32, 10**12]",
    "UInt(10**9)",
    "Fixed(2**40, 3)",
    "1.7976931348623157e308 * 10",
    "-(2**63)",
    "1 // 0",
    "1 % 0",
]
# Characters that are line breaks for someone: `str.splitlines`, libcst, CPython, LSP clients.
LINE_BREAKS = ["\r\n", "\r", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x00", "\ufeff"]
UNICODE = st.text(st.characters(codec=None, exclude_categories=()), min_size=1, max_size=12)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@dataclass
class Case:
    base: str  # corpus name
    ops: list[tuple]  # (kind, *parameters), applied in order
    text: str

    def describe(self) -> str:
        shown = [
            tuple(p if not isinstance(p, str) or len(p) < 60 else f"<{len(p)} chars {p[:20]!r}...>" for p in op)
            for op in self.ops
        ]
        return f"{self.base} + {shown}"


def apply(text: str, op: tuple) -> str:
    """One mutation. Parameters are fractions (0..1) of the text's size, so a mutation stays
    meaningful after earlier ones changed the text."""
    kind, *p = op
    if kind == "truncate":
        return text[: int(p[0] * len(text))]
    if kind in ("delete_token", "duplicate_token", "swap_tokens", "replace_token", "insert"):
        toks = tokens(text) or [""]
        i = min(int(p[0] * len(toks)), len(toks) - 1)
        if kind == "delete_token":
            del toks[i]
        elif kind == "duplicate_token":
            toks.insert(i, toks[i])
        elif kind == "swap_tokens":
            j = min(int(p[1] * len(toks)), len(toks) - 1)
            toks[i], toks[j] = toks[j], toks[i]
        elif kind == "replace_token":
            toks[i] = p[1]
        else:
            toks.insert(i, p[1])
        return "".join(toks)
    lines = text.split("\n")
    i = min(int(p[0] * len(lines)), len(lines) - 1)
    if kind == "delete_line":
        del lines[i]
    elif kind == "duplicate_line":
        lines[i:i] = lines[i : i + int(p[1])]
    elif kind == "swap_lines":
        j = min(int(p[1] * len(lines)), len(lines) - 1)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "indent":
        lines[i] = " " * int(p[1]) + lines[i].lstrip() if p[1] >= 0 else lines[i].lstrip()
    elif kind == "insert_line":
        lines.insert(i, p[1])
    elif kind == "nest":  # wrap what follows the indentation of a line in `depth` brackets
        opening, closing = p[2]
        body = lines[i].lstrip() or "x"
        lines[i] = lines[i][: len(lines[i]) - len(lines[i].lstrip())] + opening * int(p[1]) + body + closing * int(p[1])
    elif kind == "line_break":  # replace some of the newlines by another terminator
        every = max(int(p[1]), 1)
        return "".join(
            line + ("\n" if k % every else p[2]) if k < len(lines) - 1 else line for k, line in enumerate(lines)
        )
    else:
        raise ValueError(kind)
    return "\n".join(lines)


def _deep_line(kind: str, depth: int) -> str:
    """A line nested `depth` deep in one of the ways parsers recurse."""
    if kind == "blocks":  # indentation: one `if` per level
        return "\n".join(" " * k + "if x:" for k in range(depth)) + "\n" + " " * depth + "pass"
    pieces = {
        "unary": "-" * depth + "x",
        "not": "not " * depth + "x",
        "attribute": "x" + ".a" * depth,
        "subscript": "x" + "[0]" * depth,
        "call": "f" + "()" * depth,
        "lambda": "lambda: " * depth + "0",
        "power": "**".join(["2"] * depth),
        "sum": "+".join(["1"] * depth),
        "compare": "<".join(["1"] * depth),
        "fstring": "f'{" * min(depth, 4) + "x" + "}'" * min(depth, 4),
        "string_concat": " ".join(["'a'"] * depth),
        "starred": "[" + "*[" * depth + "]" * depth + "]",
        "dict": "{" * depth + "}" * depth,
    }
    return "y = " + pieces[kind]


def _long_line(kind: str, size: int) -> str:
    if kind == "comment":
        return "# " + "x" * size
    if kind == "string":
        return "s = '" + "x" * size + "'"
    if kind == "sum":
        return "s = " + "1+" * (size // 2) + "1"
    if kind == "names":
        return "s = " + ", ".join(["name"] * (size // 6))
    if kind == "brackets":
        return "s = " + "(" * (size // 2) + ")" * (size // 2)
    if kind == "spaces":
        return " " * size + "x = 1"
    if kind == "call":
        return "mod(" + ", ".join(["A"] * (size // 3)) + ")"
    return "x" * size


_fraction = st.floats(0, 1, allow_nan=False)
_tok = st.one_of(st.sampled_from(VOCABULARY), UNICODE)

MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), _fraction),
    st.tuples(st.just("delete_token"), _fraction),
    st.tuples(st.just("duplicate_token"), _fraction),
    st.tuples(st.just("swap_tokens"), _fraction, _fraction),
    st.tuples(st.just("replace_token"), _fraction, _tok),
    st.tuples(st.just("insert"), _fraction, _tok),
    st.tuples(st.just("insert"), _fraction, st.sampled_from(HUGE_LITERALS)),
    st.tuples(st.just("delete_line"), _fraction),
    st.tuples(st.just("duplicate_line"), _fraction, st.integers(1, 40)),
    st.tuples(st.just("swap_lines"), _fraction, _fraction),
    st.tuples(st.just("indent"), _fraction, st.integers(-1, 40)),
    st.tuples(st.just("insert_line"), _fraction, UNICODE),
    st.tuples(
        st.just("insert_line"),
        _fraction,
        st.builds(
            _deep_line,
            st.sampled_from(
                [
                    "blocks",
                    "unary",
                    "not",
                    "attribute",
                    "subscript",
                    "call",
                    "lambda",
                    "power",
                    "sum",
                    "compare",
                    "fstring",
                    "string_concat",
                    "starred",
                    "dict",
                ]
            ),
            st.integers(1, 260),
        ),
    ),
    st.tuples(
        st.just("insert_line"),
        _fraction,
        st.builds(
            _long_line,
            st.sampled_from(["comment", "string", "sum", "names", "brackets", "spaces", "call", "x"]),
            st.sampled_from([998, 999, 1000, 1001, 1002, 5000, 100_000, 1_000_000]),
        ),
    ),
    st.tuples(
        st.just("nest"),
        _fraction,
        st.integers(1, 200),
        st.sampled_from([("(", ")"), ("[", "]"), ("{", "}"), ("(", ""), ("", ")")]),
    ),
    st.tuples(st.just("line_break"), _fraction, st.integers(1, 7), st.sampled_from(LINE_BREAKS)),
)


@st.composite
def cases(draw, bases: list[str] | None = None) -> Case:
    base = draw(st.sampled_from(bases or NAMES))
    ops = draw(st.lists(MUTATIONS, min_size=1, max_size=4))
    text = CORPUS[base]
    for op in ops:
        text = apply(text, op)
    return Case(base, ops, text)


# -- checking one case --------------------------------------------------------------------------


@dataclass
class Failure:
    kind: str  # "exception", "slow", "range", "cache"
    where: str  # the feature
    detail: str  # exception type and innermost allo_lsp frame, or what was wrong

    def signature(self) -> str:
        """What makes two failures the same: kind, feature and, for an exception, its type,
        message shape and place (quoted names and numbers blanked out)."""
        if self.kind != "exception":
            return f"{self.kind}:{self.where}"
        first = self.detail.splitlines()[0][:200] if self.detail else ""
        first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
        first = re.sub(r"(?<![A-Za-z_])\d+", "N", first)
        return f"{self.kind}:{self.where}:{first}"


@dataclass
class Outcome:
    seconds: float  # a fresh analysis of the mutated text (the best of three when slow)
    lines: int
    failures: list[Failure] = field(default_factory=list)
    cached_seconds: float | None = None  # the editor's analysis after the base text


def _frame(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "allo_lsp" in f.filename]
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} ({frames[-1].name})" if frames else ""
    return f"{type(exc).__name__}: {str(exc)[:200]}{where}"


class _Checker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.split("\n")
        self.failures: list[Failure] = []

    def call(self, where: str, fn, *args):
        try:
            return fn(*args)
        except RecursionError as exc:
            self.failures.append(Failure("exception", where, _frame(exc)))
        except Exception as exc:  # noqa: BLE001 - every escape is a finding
            self.failures.append(Failure("exception", where, _frame(exc) + "\n" + traceback.format_exc()[-3000:]))
        return None

    def range_ok(self, where: str, r, lines: list[str] | None = None) -> None:
        """A range of the model must lie on lines of the text it was computed on, start before
        its end. A column past the end of its line is allowed (ADF900 marks the end of a line
        one past it): LSP clients clamp it to the line's length."""
        lines = self.lines if lines is None else lines
        if r is None:
            return
        ok = (
            0 <= r.start.line <= r.end.line < len(lines)
            and (r.start.line, r.start.column) <= (r.end.line, r.end.column)
            and r.start.column >= 0
        )
        if not ok:
            lengths = [len(lines[n]) if 0 <= n < len(lines) else None for n in (r.start.line, r.end.line)]
            self.failures.append(
                Failure(
                    "range", where, f"{r} outside the text ({len(lines)} lines; those lines have {lengths} characters)"
                )
            )


def _positions(text: str, rng: random.Random, count: int) -> list[Position]:
    lines = text.split("\n")
    out = []
    for _ in range(count):
        line = rng.randrange(len(lines))
        out.append(Position(line, rng.randint(0, len(lines[line]))))
    return out


_BASES: dict[str, DocumentAnalysis] = {}


def _base(text: str) -> DocumentAnalysis:
    """The editor's analysis of the text before the mutation (with its parse cache), computed
    once per base text: `DocumentAnalysis.build` copies what it reuses of it."""
    if text not in _BASES:
        _BASES[text] = DocumentAnalysis.build(text, 1, Options(), None)
    return _BASES[text]


def _timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def check_case(
    text: str, base_text: str | None = None, seed: int = 0, positions: int = 6, time_limit: float | None = TIME_LIMIT_S
) -> Outcome:
    """Everything the editor does with `text`; failures listed, never raised.

    Times: `seconds` is a fresh analysis of `text`; `cached_seconds` is the editor's analysis of
    it after `base_text` (`DocumentAnalysis.build` with the base's analysis as the previous one:
    unchanged chunks are not parsed again), which must find the same problems. A time over
    `time_limit` is measured again (the best counts: a loaded machine is not a slow analysis)
    and is then a "slow" failure, for files up to MAX_LINES lines.
    """
    rng = random.Random(seed)
    # As the server reads a document: lines where LSP breaks them (a lone CR too).
    text = lsp_newlines(text)
    base_text = lsp_newlines(base_text) if base_text is not None else None
    c = _Checker(text)
    lines = text.split("\n")
    result, seconds = _timed(c.call, "analyze", analyze, text)
    outcome = Outcome(seconds, len(lines), c.failures)
    if result is None:
        return outcome
    base = c.call("DocumentAnalysis.build(base)", _base, base_text) if base_text is not None else None
    doc = None
    if base is not None:
        built = c.call("DocumentAnalysis.build", _timed, DocumentAnalysis.build, text, 2, Options(), base)
        if built is not None:
            doc, outcome.cached_seconds = built
            _same_problems(c, result, doc.current)
    if time_limit is not None and len(lines) <= MAX_LINES:
        _check_time(c, outcome, text, base, time_limit)
    for p in result.problems:
        c.range_ok(f"problem {p.code}", p.range)
    _check_features(c, text, result, rng, positions)
    # The editor's view while typing: the last analysis of a text that parsed, moved.
    if doc is not None:
        for p in c.call("DocumentAnalysis.problems", lambda: doc.problems) or ():
            c.range_ok(f"moved problem {p.code}", p.range)
        view = c.call("DocumentAnalysis.view", doc.view, text)
        if view is not None:
            analysis, base_view_text, shift = view
            _check_view(c, text, analysis, base_view_text, shift, rng, positions)
    _check_lsp(c, text, result)
    _check_renderers(c, result)
    return outcome


def _check_time(c: _Checker, outcome: Outcome, text: str, base: DocumentAnalysis | None, limit: float) -> None:
    """Over the limit is measured twice more, unless it is clearly over (3x): the best counts."""
    if outcome.seconds > limit:
        for _ in range(2 if outcome.seconds < 3 * limit else 0):
            outcome.seconds = min(outcome.seconds, _timed(analyze, text)[1])
        if outcome.seconds > limit:
            c.failures.append(Failure("slow", "analyze", f"{outcome.seconds * 1000:.0f} ms for {outcome.lines} lines"))
    if outcome.cached_seconds is not None and outcome.cached_seconds > limit:
        for _ in range(2 if outcome.cached_seconds < 3 * limit else 0):
            again = _timed(DocumentAnalysis.build, text, 2, Options(), base)[1]
            outcome.cached_seconds = min(outcome.cached_seconds, again)
        if outcome.cached_seconds > limit:
            c.failures.append(
                Failure(
                    "slow",
                    "DocumentAnalysis.build",
                    f"{outcome.cached_seconds * 1000:.0f} ms for {outcome.lines} lines",
                )
            )


def _same_problems(c: _Checker, fresh, cached) -> None:
    """With the parse cache of the previous text, the analysis must be the same as without."""
    mine = [(p.code, p.range, p.message) for p in fresh.problems]
    theirs = [(p.code, p.range, p.message) for p in cached.problems]
    if mine != theirs:
        diff = sorted(set(mine) ^ set(theirs), key=str)[:4]
        c.failures.append(Failure("cache", "analyze(text, cache)", f"problems differ from a fresh analysis: {diff}"))


def _check_features(c: _Checker, text: str, result, rng: random.Random, count: int) -> None:
    for pos in _positions(text, rng, count):
        h = c.call("hover", hover, result, pos)
        if h is not None:
            c.range_ok("hover", h.range)
        c.range_ok("definition", c.call("definition", definition, result, pos))
        for r in c.call("references", references, result, pos, True) or ():
            c.range_ok("references", r)
        end = _positions(text, rng, 1)[0]
        where = Range(min(pos, end), max(pos, end))
        for action in c.call("code_actions", code_actions, text, result, where) or ():
            for edit in action.edits:
                c.range_ok(f"code action {action.codes}", edit.range)
        c.call("run_actions", run_actions, result, pos.line)
    for s in c.call("document_symbols", document_symbols, result) or ():
        _symbol_ok(c, s)
    for h in c.call("inlay_hints", inlay_hints, result) or ():
        c.range_ok("inlay hint", Range(h.position, h.position))
    for lens in c.call("code_lenses", code_lenses, result, {}, set()) or ():
        c.range_ok("lens", lens.range)


def _symbol_ok(c: _Checker, s) -> None:
    c.range_ok(f"symbol {s.kind}", s.range)
    c.range_ok(f"symbol {s.kind} selection", s.selection)
    for child in s.children:
        _symbol_ok(c, child)


def _check_view(c: _Checker, text: str, analysis, base: str, shift, rng: random.Random, count: int) -> None:
    """Requests on `text` answered from an analysis of `base`, moved line by line (the server's
    `_at`/`range_forward`): whatever comes back must lie in `text`."""
    base_lines = base.split("\n")
    for pos in _positions(text, rng, count):
        back = c.call("position_back", position_back, shift, pos)
        if back is None:
            continue
        # The column is the current text's: it may be past the end of the old line.
        h = c.call("hover (view)", hover, analysis, back)
        if h is not None:
            c.range_ok("hover (view, before moving)", h.range, base_lines)
            c.range_ok("hover (view)", c.call("range_forward", range_forward, shift, h.range))
        target = c.call("definition (view)", definition, analysis, back)
        if target is not None:
            c.range_ok("definition (view)", c.call("range_forward", range_forward, shift, target))
        for r in c.call("references (view)", references, analysis, back, True) or ():
            moved = c.call("range_forward", range_forward, shift, r)
            c.range_ok("references (view)", moved)
    for s in c.call("document_symbols (view)", document_symbols, analysis) or ():
        for r in (s.range, s.selection):
            c.range_ok("symbol (view)", c.call("range_forward", range_forward, shift, r))


def _check_lsp(c: _Checker, text: str, result) -> None:
    """The LSP conversion of the diagnostics, with UTF-16 columns, as the server publishes them."""
    from allo_lsp.lsp.convert import Converter
    from lsprotocol import types as lsp
    from pygls.workspace.position_codec import PositionCodec

    convert = Converter(PositionCodec(lsp.PositionEncodingKind.Utf16), text.split("\n"))
    for p in result.problems:
        c.call("Converter.diagnostic", convert.diagnostic, p)
    for s in c.call("document_symbols", document_symbols, result) or ():
        c.call("Converter.symbol", convert.symbol, s)
    for pos in _positions(text, random.Random(len(text)), 2):
        c.call("Converter.from_position", convert.from_position, lsp.Position(pos.line, pos.column))


def _check_renderers(c: _Checker, result) -> None:
    from allo_lsp import check

    checked = [check.CheckedFile("fuzz.py", result)] if hasattr(check, "CheckedFile") else None
    if checked is None:
        return
    for fmt in ("text", "json", "sarif", "github"):
        out = c.call(f"check --format {fmt}", check.render, checked, fmt)
        if out is not None and fmt in ("json", "sarif"):
            c.call(f"check --format {fmt} is JSON", json.loads, out)
