"""The module-level imports a fix relies on: the name numpy goes by, and adding a missing import."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import TextEdit


def numpy_alias(source: Source) -> tuple[str, list[TextEdit]]:
    """The name the file imports numpy as, or `np` and the edit that imports it."""
    for stmt in _imports(source):
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                if _dotted(alias.name) == "numpy":
                    return _local(alias), []
    return "np", [_new_line(source, "import numpy as np")]


def ensure_imported(source: Source, module: str, name: str) -> list[TextEdit]:
    """Add `name` to the file's `from <module> import ...` (or a new such line) unless a
    module-level import already provides it."""
    existing = None
    for stmt in _imports(source):
        if not isinstance(stmt, cst.ImportFrom):
            continue
        if isinstance(stmt.names, cst.ImportStar):
            if stmt.module is not None and _dotted(stmt.module) == module:
                return []
            continue
        if any(_local(a) == name for a in stmt.names):
            return []
        if stmt.module is not None and _dotted(stmt.module) == module and not stmt.relative:
            existing = existing or stmt
    if existing is None:
        return [_new_line(source, f"from {module} import {name}")]
    return [source.insert(source.range(existing.names[-1]).end, f", {name}")]


def ensure_module(source: Source, module: str) -> list[TextEdit]:
    """Add `import <module>` unless a module-level import already binds that name to it."""
    for stmt in _imports(source):
        if isinstance(stmt, cst.Import) and any(_local(a) == module == _dotted(a.name) for a in stmt.names):
            return []
    return [_new_line(source, f"import {module}")]


def rename_imported(source: Source, module: str, old: str, new: str) -> list[TextEdit] | None:
    """`from <module> import old` made to import `new` instead: the name renamed in place, or
    dropped when `new` is imported already (the whole line when it was the only name). None when
    no module-level import binds `old` from there."""
    found = [
        (stmt, i)
        for stmt in _imports(source)
        if isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar)
        if stmt.module is not None and _dotted(stmt.module) == module and not stmt.relative
        for i, alias in enumerate(stmt.names)
        if alias.asname is None and _local(alias) == old
    ]
    if not found:
        return None
    stmt, i = found[0]
    names = list(stmt.names)  # type: ignore[arg-type]
    if not ensure_imported(source, module, new):  # `new` is there already: `old` goes
        return [source.replace(_dropped(source, stmt, names, i), "")]
    return [source.replace(source.range(names[i].name), new)]


def _dropped(source: Source, stmt: cst.ImportFrom, names: list[cst.ImportAlias], i: int) -> Range:
    """The text to delete to drop `names[i]` with its comma; the whole line for the only name."""
    if len(names) == 1:
        line = source.range(stmt).start.line
        return Range(Position(line, 0), Position(line + 1, 0))
    if i + 1 < len(names):
        return Range(source.range(names[i]).start, source.range(names[i + 1]).start)
    before = names[i - 1]
    kept = before.asname.name if before.asname is not None else before.name  # up to its `as x`, not its comma
    return Range(source.range(kept).end, source.range(names[i].name).end)


def _imports(source: Source) -> list[cst.BaseSmallStatement]:
    return [
        small
        for stmt in source.module.body
        if isinstance(stmt, cst.SimpleStatementLine)
        for small in stmt.body
        if isinstance(small, (cst.Import, cst.ImportFrom))
    ]


def _new_line(source: Source, line: str) -> TextEdit:
    """A new line after the last module-level import (after the docstring when there is none)."""
    newline = source.module.default_newline
    anchor = None
    for stmt in source.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        if any(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
            anchor = stmt
        elif anchor is None and stmt is source.module.body[0] and _is_docstring(stmt):
            anchor = stmt
    if anchor is None:
        return source.insert(Position(0, 0), line + newline)
    last = source.range(anchor).end.line
    if last + 1 < len(source.lines):
        return source.insert(Position(last + 1, 0), line + newline)
    return source.insert(source.line_end(last), newline + line)


def _is_docstring(stmt: cst.SimpleStatementLine) -> bool:
    return isinstance(stmt.body[0], cst.Expr) and isinstance(
        stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)
    )


def _local(alias: cst.ImportAlias) -> str:
    """The name an import binds: `np` for `import numpy as np`."""
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return _dotted(alias.name)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""
