"""Static analysis of Allo dataflow designs: source text in, semantic model and problems out.

Pure: no I/O, no editor types, never raises on user code. How the process running it is tuned
(the GIL's switch interval, the collector) is its caller's: `allo_lsp/host.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis import deep
from allo_lsp.analysis.chunks import ParseCache, Positions, combine, parse_chunks, statement_prefix, statement_starts
from allo_lsp.analysis.expression_types import type_kernels
from allo_lsp.analysis.extract import extract
from allo_lsp.analysis.model import FileModel, Partial, Range, SyntaxProblem
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules import run_rules
from allo_lsp.analysis.rules.base import Context, Options

__all__ = ["Analysis", "Options", "ParseCache", "Problem", "Severity", "analyze", "lsp_newlines"]


@dataclass
class Analysis:
    model: FileModel
    problems: list[Problem]
    options: Options = Options()


def analyze(text: str, options: Options = Options(), cache: ParseCache | None = None) -> Analysis:
    """`cache`: the previous analysis' parse cache of the same document; only the top-level
    chunks whose text changed are parsed again (the result is the same as without it)."""
    cache = cache if cache is not None else ParseCache()
    text = lsp_newlines(text)
    text, partial = _bounded(text, options.max_chars)
    try:
        model = _model(text, cache)
    except RecursionError:
        # libcst's walks recurse a few frames per level of an expression: one nested deeper
        # than Python's default limit allows is walked again with room for it (`deep`).
        model = _deep_model(text, cache)
    model.partial = partial
    type_kernels(model, text)
    return Analysis(model, options.selection.shown(run_rules(Context(model, options)), text), options)


def _model(text: str, cache: ParseCache) -> FileModel:
    chunks, errors = parse_chunks(text, cache)
    model = extract(combine(chunks), Positions(chunks), cache.definitions) if chunks else FileModel()
    model.syntax_errors = errors
    return model


def _deep_model(text: str, cache: ParseCache) -> FileModel:
    """The model of a text whose analysis overflowed Python's stack: made again with room for
    expressions nested up to `deep.MAX_NESTING` levels. Deeper (an operator chain of hundreds of
    terms, `1+1+...`, though within parse.py's guards) is not analysed."""
    lines = text.split("\n")
    starts = statement_starts(lines) + [len(lines)]
    levels, line = deep.deepest([(a, "\n".join(lines[a:b])) for a, b in zip(starts, starts[1:])])
    if levels <= deep.MAX_NESTING:
        try:
            return deep.call(_model, text, cache)
        except RecursionError:
            pass
    return FileModel(syntax_errors=[_too_deep(lines, line if levels else None)])


def _bounded(text: str, max_chars: int) -> tuple[str, Partial | None]:
    """`text`, or its longest prefix of whole top-level statements within `max_chars`: time and
    memory stay bounded on a file of megabytes, and the model says what was left out."""
    if len(text) <= max_chars:
        return text, None
    lines = text.split("\n")
    within = text.count("\n", 0, max_chars)  # lines that end before the bound
    kept = statement_prefix(lines, within)
    prefix = "\n".join(lines[:kept]) + "\n" if kept else ""
    return prefix, Partial(kept, len(prefix), len(lines), len(text), max_chars)


def lsp_newlines(text: str) -> str:
    """`text` with every line break LSP knows (`\\r\\n`, a lone `\\r`, `\\n`) written `\\n`: its
    lines are the editor's lines, each with the same columns. The analysis and the editor
    features number lines in this text (a lone `\\r` is also a line break to libcst)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _too_deep(lines: list[str], line: int | None) -> SyntaxProblem:
    """The problem for a file too deeply nested to analyse, on the line of its deepest
    expression (None: CPython could not tell), else on its longest line."""
    if line is None or not 0 <= line < len(lines):
        line = max(range(len(lines)), key=lambda i: len(lines[i]))
    message = "this expression is nested too deeply to analyse: the file is not analysed"
    return SyntaxProblem(message, Range.of(line, 0, line, len(lines[line])))
