"""Static analysis of Allo dataflow designs: source text in, semantic model and problems out.

Pure: no I/O, no editor types, never raises on user code.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis.chunks import ParseCache, Positions, combine, parse_chunks
from allo_lsp.analysis.extract import extract
from allo_lsp.analysis.model import FileModel
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules import run_rules
from allo_lsp.analysis.rules.base import Context, Options

__all__ = ["Analysis", "Options", "ParseCache", "Problem", "Severity", "analyze"]


@dataclass
class Analysis:
    model: FileModel
    problems: list[Problem]
    options: Options = Options()


def analyze(text: str, options: Options = Options(), cache: ParseCache | None = None) -> Analysis:
    """`cache`: the previous analysis' parse cache of the same document; only the top-level
    chunks whose text changed are parsed again (the result is the same as without it)."""
    cache = cache if cache is not None else ParseCache()
    chunks, errors = parse_chunks(text, cache)
    model = extract(combine(chunks), Positions(chunks), cache.definitions) if chunks else FileModel()
    model.syntax_errors = errors
    return Analysis(model, run_rules(Context(model, options)), options)
