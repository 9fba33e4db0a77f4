"""ADF011, ADF010: `mapping=` as the first keyword of `@df.kernel(...)`, where Allo reads it."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Position, Range
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source

# One PE: the mapping that changes nothing else about the design.
_DEFAULT_MAPPING = "mapping=[1]"


def move_mapping_first(source: Source, model: FileModel, problem: Problem) -> Fix:
    """Each keyword keeps its text; the commas, line breaks and comments between them stay put."""
    call = _decorator(source, model, problem)
    if not isinstance(call, cst.Call):
        raise Unavailable("the decorator is not a call")
    keywords = [a for a in call.args if a.keyword is not None]
    at = next((i for i, a in enumerate(keywords) if a.keyword.value == "mapping"), 0)
    if at == 0:
        raise Unavailable("mapping= is already first")
    order = [at] + [i for i in range(len(keywords)) if i != at]
    # Keyword order means nothing to Python: only Allo reads the first one.
    return Fix("Move mapping= first", source.permute([source.range(a) for a in keywords], order), safe=True)


def add_mapping(source: Source, model: FileModel, problem: Problem) -> Fix:
    # Unsafe: one PE is a guess at what the kernel was meant to be.
    expr = _decorator(source, model, problem)
    title = f"Add {_DEFAULT_MAPPING} as the first keyword"
    if not isinstance(expr, cst.Call):  # `@df.kernel`
        return Fix(title, [source.insert(source.range(expr).end, f"({_DEFAULT_MAPPING})")], safe=False)
    keywords = [a for a in expr.args if a.keyword is not None]
    if keywords:
        return Fix(title, [source.insert(source.range(keywords[0]).start, f"{_DEFAULT_MAPPING}, ")], safe=False)
    if expr.args:  # positional arguments only: a keyword must follow them
        return Fix(title, [source.insert(source.range(expr.args[-1]).end, f", {_DEFAULT_MAPPING}")], safe=False)
    end = source.range(expr).end
    close = Position(end.line, end.column - 1)
    if source.text_at(Range(close, end)) != ")":
        raise Unavailable("no closing parenthesis where expected")
    return Fix(title, [source.insert(close, _DEFAULT_MAPPING)], safe=False)


def _decorator(source: Source, model: FileModel, problem: Problem) -> cst.BaseExpression:
    kernel = kernel_of(region_of(model, problem), problem.data.get("kernel"))
    return source.find(cst.Decorator, kernel.decorator_range).decorator
