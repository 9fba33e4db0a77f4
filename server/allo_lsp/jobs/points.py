"""A point of a design space: module-level constants applied to the design's text (never to the
user's file) and synthesis settings. One synthesis each (`sweep.py`, `slurm_batch.py`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


class PointError(Exception):
    """A point that cannot be applied to the design; the message says what to change."""


@dataclass
class Point:
    """One synthesis of a sweep (or the only one): module-level constants and synthesis settings."""

    constants: dict = field(default_factory=dict)  # name -> value, applied to the design's text
    clock_ns: float = 0.0  # 0: the run's setting
    part: str = ""  # empty: the run's setting


def apply_constants(source: str, constants: dict) -> str:
    """The design's text with each module-level constant's assignments (`P0 = 4`, `M, N = 8, 8`)
    given the point's value. A name no module-level assignment binds is a PointError."""
    if not constants:
        return source
    tree = _parse(source)
    lines = source.splitlines(keepends=True)
    edits: list[tuple[ast.expr, object]] = []
    found = set()
    for name, value in _module_bindings(tree):
        if name in constants:
            edits.append((value, constants[name]))
            found.add(name)
    unknown = sorted(set(constants) - found)
    if unknown:
        raise PointError(f"no module-level assignment of {', '.join(unknown)} in the design: --set names its constants")
    for node, value in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        start = _offset(lines, node.lineno, node.col_offset)
        end = _offset(lines, node.end_lineno, node.end_col_offset)
        text = "".join(lines)
        lines = (text[:start] + repr(value) + text[end:]).splitlines(keepends=True)
    return "".join(lines)


def _parse(source: str) -> ast.Module:
    """The design's syntax tree; a design that does not parse, or nests past the parser's depth
    (which raises RecursionError or MemoryError, not SyntaxError), is a PointError."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise PointError(
            f"the design cannot be parsed, so no constant can be set in it: {type(exc).__name__}: {exc}"
        ) from None


def _module_bindings(tree: ast.Module):
    """(name, the expression it is given) of each module-level assignment, in order."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                yield from _bound(target, statement.value)
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            yield from _bound(statement.target, statement.value)


def _bound(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, the expression it is given) of an assignment, unpacking `M, N = 8, 8`."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        if len(target.elts) == len(value.elts):
            return [pair for t, v in zip(target.elts, value.elts) for pair in _bound(t, v)]
    return []


def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    """The text offset of ast's (1-based line, UTF-8 byte column)."""
    before = sum(len(line) for line in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode()[:col_bytes].decode(errors="replace"))


def module_constants(source: str) -> dict:
    """The module-level constants a sweep can set: each name a module-level assignment gives a
    literal number, string or boolean (`P0 = 4`, `M, N = 8, 8`), with its value in the text.
    A file that does not parse has none."""
    try:
        tree = _parse(source)
    except PointError:
        return {}
    return {
        name: value.value
        for name, value in _module_bindings(tree)
        if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str, bool))
    }
