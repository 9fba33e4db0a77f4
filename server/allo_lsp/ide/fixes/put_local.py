"""ADF090: a narrower signed value put into a wider int stream goes through a local of the
stream's element type first, which Allo sign-extends (the put itself zero-extends).

`s.put(a[i] * b[i])` -> `value: int32 = a[i] * b[i]` on the line before, then `s.put(value)`.
Only a put that is a statement of its own on its line in an indented block: in a lambda, a
comprehension or a one-line `if x: s.put(v)` there is no line to put the local on.
"""

from __future__ import annotations

import ast

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Position, Range, Region
from allo_lsp.analysis.walk import walk
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source


def through_local(source: Source, model: FileModel, problem: Problem) -> Fix:
    region = region_of(model, problem)
    kernel = source.function(kernel_of(region, problem.data.get("kernel")).range)
    element = _element_spelling(region, problem.data.get("stream"))
    statement, value = _put_statement(source, kernel, problem.range)
    start = source.range(statement).start
    indent = source.lines[start.line][: start.column]
    if indent.strip():
        raise Unavailable("the put does not start its line")
    name = names.fresh("value", names.taken(source, model, kernel))
    expression = source.text_of(value)
    if "\n" in expression:  # continued inside the put's parentheses: it needs its own
        expression = f"({expression})"
    newline = "\r\n" if source.lines[start.line].endswith("\r") else "\n"
    edits = [
        source.insert(Position(start.line, 0), f"{indent}{name}: {element} = {expression}{newline}"),
        source.replace(source.range(value), name),
    ]
    # Unsafe: the stream receives another number than it did (the sign-extended one).
    return Fix(f"Store the value in '{name}: {element}' before the put", edits, safe=False)


def _element_spelling(region: Region, stream_name: str | None) -> str:
    """The stream's element type as its declaration writes it: `int32` of `Stream[int32, 4]`
    (or of a stream array, `Stream[int32, 4][P]`). Only a name or a dotted name: a type built
    by a call (`Int(16)`) or a string is left to the user."""
    stream = next((s for s in region.streams if s.name == stream_name), None)
    if stream is None or stream.legacy_pipe or not stream.well_formed:
        raise Unavailable(f"no declared stream {stream_name!r}")
    try:
        node = ast.parse(stream.annotation.strip(), mode="eval").body
    except SyntaxError as exc:
        raise Unavailable("an annotation that does not parse") from exc
    while isinstance(node, ast.Subscript) and not _names_stream(node.value):
        node = node.value  # a stream array: `Stream[T, d][dims]`
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple) or not node.slice.elts:
        raise Unavailable("not a Stream[T, depth] annotation")
    element = node.slice.elts[0]
    if not isinstance(element, (ast.Name, ast.Attribute)):
        raise Unavailable("an element type that is not a name")
    return ast.unparse(element)


def _names_stream(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "Stream") or (
        isinstance(node, ast.Attribute) and node.attr == "Stream"
    )


def _put_statement(
    source: Source, kernel: cst.FunctionDef, value_range: Range
) -> tuple[cst.SimpleStatementLine, cst.BaseExpression]:
    """The line `s.put(value)` (or `s[i].put(value)`) of `kernel` whose value spans `value_range`,
    and that value (its parentheses included). A `SimpleStatementLine` is always a line of an
    indented block: a one-line compound statement holds a `SimpleStatementSuite` instead."""
    for node in walk(kernel.body, prune=(cst.FunctionDef, cst.Lambda)):
        if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
            continue  # `a = f(); s.put(a)`: the local would read `a` before it is bound
        call = node.body[0].value if isinstance(node.body[0], cst.Expr) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "put"):
            continue
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            continue
        value = call.args[0].value
        span = source.range(value)
        if span.start <= value_range.start and value_range.end <= span.end:
            return node, value
    raise Unavailable("the put is not a statement of its own")
