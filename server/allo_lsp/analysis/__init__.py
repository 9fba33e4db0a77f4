"""Static analysis of Allo dataflow designs: source text in, semantic model and problems out.

Pure: no I/O, no editor types, never raises on user code.
"""

from __future__ import annotations

import ast
import gc
from contextlib import contextmanager
from dataclasses import dataclass

from allo_lsp.analysis.chunks import ParseCache, Positions, combine, parse_chunks, statement_prefix
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
        with _collection_paused():
            chunks, errors = parse_chunks(text, cache)
            model = extract(combine(chunks), Positions(chunks), cache.definitions) if chunks else FileModel()
        model.syntax_errors = errors
        model.partial = partial
        return Analysis(model, run_rules(Context(model, options)), options)
    except RecursionError:
        # libcst's visitors recurse a few frames per level of an expression, so an operator
        # chain or a literal nested deeper than they can walk (`1+1+...` on one long line,
        # 149 nested `[`), though within parse.py's guards, is not analysed either.
        model = FileModel(syntax_errors=[_too_deep(text)], partial=partial)
        return Analysis(model, run_rules(Context(model, options)), options)


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


@contextmanager
def _collection_paused():
    """No cyclic garbage collection while the trees are built and walked: the analysis makes
    millions of objects that live until it ends, and each full collection walks all of them,
    which made the first analysis of a large file grow faster than the file."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def lsp_newlines(text: str) -> str:
    """`text` with every line break LSP knows (`\\r\\n`, a lone `\\r`, `\\n`) written `\\n`: its
    lines are the editor's lines, each with the same columns. The analysis and the editor
    features number lines in this text (a lone `\\r` is also a line break to libcst)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _too_deep(text: str) -> SyntaxProblem:
    """The problem for a file too deeply nested to analyse, on the line of its deepest node
    (CPython's parser and an iterative walk find it), else on its longest line."""
    lines = text.split("\n")
    line = max(range(len(lines)), key=lambda i: len(lines[i]))
    try:
        deepest, stack = (0, line + 1), [(ast.parse(text), 0)]
        while stack:
            node, depth = stack.pop()
            if depth > deepest[0] and hasattr(node, "lineno"):
                deepest = (depth, node.lineno)
            stack += [(child, depth + 1) for child in ast.iter_child_nodes(node)]
        line = min(deepest[1] - 1, len(lines) - 1)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    message = "this expression is nested too deeply to analyse: the file is not analysed"
    return SyntaxProblem(message, Range.of(line, 0, line, len(lines[line])))
