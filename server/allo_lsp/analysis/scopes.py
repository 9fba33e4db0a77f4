"""The bindings a block makes in its scope, recorded before the block is visited so that a name
resolves to what Allo would see: assignments (tuple targets element by element), imports (names
from `allo` given Allo's meaning), `for`/`with` targets, functions and classes."""

from __future__ import annotations

from typing import Any

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import UNKNOWN, FunctionRef, Scope, Symbol
from allo_lsp.analysis.syntax import COMPOUND, compound_bodies, dotted, flatten, target_names


def bind_block(ctx: Context, body, scope: Scope) -> None:
    """A block's bindings, nested if/for/with/try bodies included."""
    for stmt in flatten(body):
        bind_statement(ctx, stmt, scope)
        if isinstance(stmt, COMPOUND):
            bind_block(ctx, compound_bodies(stmt), scope)


def bind_statement(ctx: Context, stmt: cst.CSTNode, scope: Scope) -> None:
    line = ctx.line(stmt)
    if isinstance(stmt, cst.Assign):
        for target in stmt.targets:
            _bind_target(target.target, stmt.value, scope, line, ())
    elif isinstance(stmt, cst.AnnAssign):
        if isinstance(stmt.target, cst.Name):
            if stmt.value:
                scope.bind(stmt.target.value, line, node=stmt.value)
            else:
                scope.bind_unknown(stmt.target.value, line)
    elif isinstance(stmt, cst.AugAssign):
        if isinstance(stmt.target, cst.Name):
            scope.bind_unknown(stmt.target.value, line)
    elif isinstance(stmt, (cst.Import, cst.ImportFrom)):
        _bind_import(ctx, stmt, scope, line)
    elif isinstance(stmt, (cst.For, cst.With)):
        for name in target_names(stmt):
            scope.bind_unknown(name, line)
    elif isinstance(stmt, cst.FunctionDef):
        scope.bind(stmt.name.value, line, value=FunctionRef(stmt, scope))
    elif isinstance(stmt, cst.ClassDef):
        scope.bind_unknown(stmt.name.value, line)


def _bind_target(target, value, scope: Scope, line: int, path: tuple[int, ...]) -> None:
    if isinstance(target, cst.Name):
        scope.bind(target.value, line, node=value, path=path)
    elif isinstance(target, (cst.Tuple, cst.List)):
        for i, el in enumerate(target.elements):
            inner = el.value
            if isinstance(el, cst.StarredElement):
                if isinstance(inner, cst.Name):
                    scope.bind_unknown(inner.value, line)
                continue
            if isinstance(value, (cst.Tuple, cst.List)) and i < len(value.elements):
                _bind_target(inner, value.elements[i].value, scope, line, path)
            else:
                _bind_target(inner, value, scope, line, path + (i,))


def _bind_import(ctx: Context, stmt, scope: Scope, line: int) -> None:
    if isinstance(stmt, cst.Import):
        for alias in stmt.names:
            qual = dotted(alias.name)
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                scope.bind(alias.asname.name.value, line, value=Symbol(qual))
            elif qual:
                scope.bind(qual.split(".")[0], line, value=Symbol(qual.split(".")[0]))
        return
    if isinstance(stmt.names, cst.ImportStar):
        return
    origin = dotted(stmt.module) if stmt.module else ""
    for alias in stmt.names:
        name = dotted(alias.name)
        local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
        if not local:
            continue
        value: Any = Symbol(f"{origin}.{name}")
        if origin.startswith("allo"):
            # `from allo.ir.types import int32, Stream`: the meaning Allo gives the name.
            fallback = ctx.evaluator.lookup(name, Scope(), 0)
            if fallback is not UNKNOWN:
                value = fallback
            elif origin == "allo" and name == "dataflow":
                value = Symbol("allo.dataflow")
        scope.bind(local, line, value=value)
