"""Static analysis of Allo dataflow designs: source text in, semantic model and problems out.

Pure: no I/O, no editor types, never raises on user code.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis.extract import extract
from allo_lsp.analysis.model import FileModel
from allo_lsp.analysis.parse import parse
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules import run_rules
from allo_lsp.analysis.rules.base import Context, Options

__all__ = ["Analysis", "Options", "Problem", "Severity", "analyze"]


@dataclass
class Analysis:
    model: FileModel
    problems: list[Problem]
    options: Options = Options()


def analyze(text: str, options: Options = Options()) -> Analysis:
    parsed = parse(text)
    model = extract(parsed.module) if parsed.module is not None else FileModel()
    model.syntax_errors = parsed.errors
    return Analysis(model, run_rules(Context(model, options)), options)
