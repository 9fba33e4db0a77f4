"""A point of a design space: module-level constants applied to the design's text (never to the
user's file) and synthesis settings. One synthesis each (`sweep.py`, `slurm_batch.py`)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property


class PointError(Exception):
    """A point that cannot be applied to the design; the message says what to change."""


@dataclass
class Point:
    """One synthesis of a sweep (or the only one): module-level constants and synthesis settings."""

    constants: dict = field(default_factory=dict)  # name -> value, applied to the design's text
    clock_ns: float = 0.0  # 0: the run's setting
    part: str = ""  # empty: the run's setting


class Constants:
    """The design's module-level assignments, read once (one parse, on first use): the constants
    a sweep can set and where each is given its value, applied to every point from that reading."""

    def __init__(self, source: str) -> None:
        self.source = source

    @cached_property
    def _bindings(self) -> list[tuple[str, ast.expr]] | PointError:
        try:
            return list(_module_bindings(_parse(self.source)))
        except PointError as exc:
            return exc

    def values(self) -> dict:
        """Each name a module-level assignment gives a literal number, string or boolean (`P0 = 4`,
        `M, N = 8, 8`), with its value in the text. A file that does not parse has none."""
        bindings = self._bindings
        if isinstance(bindings, PointError):
            return {}
        return {
            name: value.value
            for name, value in bindings
            if isinstance(value, ast.Constant) and isinstance(value.value, (int, float, str, bool))
        }

    def applied(self, constants: dict) -> str:
        """The design's text with each of `constants`' assignments given its value. A name no
        module-level assignment binds, or a design that does not parse, is a PointError."""
        if not constants:
            return self.source
        bindings = self._bindings
        if isinstance(bindings, PointError):
            raise bindings
        unknown = sorted(set(constants) - {name for name, _ in bindings})
        if unknown:
            raise PointError(
                f"no module-level assignment of {', '.join(unknown)} in the design: --set names its constants"
            )
        starts = _line_starts(self.source)
        edits = {  # by span: `P = Q = 4` gives both names one expression
            (
                _offset(self.source, starts, node.lineno, node.col_offset),
                _offset(self.source, starts, node.end_lineno, node.end_col_offset),
            ): constants[name]
            for name, node in bindings
            if name in constants
        }
        text, end = [], len(self.source)
        for (start, stop), value in sorted(edits.items(), reverse=True):  # from the end: offsets stand
            text += [self.source[stop:end], repr(value)]
            end = start
        return self.source[:end] + "".join(reversed(text))


def apply_constants(source: str, constants: dict) -> str:
    """The design's text with each module-level constant's assignments (`P0 = 4`, `M, N = 8, 8`)
    given the point's value (`Constants.applied`). A name no module-level assignment binds is a PointError."""
    return Constants(source).applied(constants)


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


def _line_starts(source: str) -> list[int]:
    """The offset of each line's start, as ast counts lines (`\\n`, `\\r\\n` and `\\r` end one;
    `str.splitlines` also ends one at a form feed)."""
    return [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", source))]


def _offset(source: str, starts: list[int], lineno: int, col_bytes: int) -> int:
    """The text offset of ast's (1-based line, UTF-8 byte column)."""
    start = starts[lineno - 1]
    line = source[start : starts[lineno]] if lineno < len(starts) else source[start:]
    return start + len(line.encode()[:col_bytes].decode(errors="replace"))


def module_constants(source: str) -> dict:
    """The module-level constants a sweep can set (`Constants.values`)."""
    return Constants(source).values()
