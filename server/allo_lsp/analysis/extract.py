"""From a libcst module to the semantic model (`model.FileModel`).

Walks every scope of the file in source order, recording the bindings Allo would see (`scopes`),
each `@df.region()` with its kernels and streams (`regions`), and each `df.build(...)` and call of
the built module (`builds`); module-level statements nothing changed for are replayed (`replay`).
Tolerant by design: half-typed code yields a partial model, never an exception.
"""

from __future__ import annotations

from functools import partial

import libcst as cst

from allo_lsp.analysis.builds import Builds
from allo_lsp.analysis.chunks import Positions
from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import RegionRef, Scope
from allo_lsp.analysis.model import FileModel, Function
from allo_lsp.analysis.regions import region
from allo_lsp.analysis.replay import Replay
from allo_lsp.analysis.scopes import bind_block
from allo_lsp.analysis.string_layouts import string_layout
from allo_lsp.analysis.syntax import COMPOUND, all_params, body, calls_in, compound_bodies, flatten


def extract(module: cst.Module, positions: Positions, cache: dict | None = None) -> FileModel:
    """`cache`: kept between analyses of one document (see `replay.Replay`)."""
    return _Extractor(module, positions, cache).run()


class _Extractor:
    """The walk over the file's scopes; each kind of statement is handed to its module."""

    def __init__(self, module: cst.Module, positions: Positions, cache: dict | None) -> None:
        self.ctx = Context(module, positions)
        self.replay = Replay(self.ctx.model, cache)
        self.builds = Builds(self.ctx)

    def run(self) -> FileModel:
        self._block(self.ctx.module.body, Scope(), ())
        self.replay.finish()
        return self.ctx.model

    def _block(self, statements, scope: Scope, path: tuple[str, ...]) -> None:
        """Record a scope's bindings (nested if/for/with/try bodies included), then visit it."""
        bind_block(self.ctx, statements, scope)
        self._visit(statements, scope, path)

    def _visit(self, statements, scope: Scope, path: tuple[str, ...]) -> None:
        for stmt in flatten(statements):
            if scope.parent is None and not isinstance(stmt, cst.ClassDef):
                self.replay.statement(stmt, self.ctx.line(stmt), scope, partial(self._top_level, stmt, scope))
            elif isinstance(stmt, cst.FunctionDef):
                self._function(stmt, scope, path)
            elif isinstance(stmt, cst.ClassDef):
                inner = Scope(scope, self.ctx.line(stmt))
                self._block(body(stmt), inner, path + (stmt.name.value,))
            else:
                self._statement(stmt, scope, path)

    def _top_level(self, stmt: cst.CSTNode, scope: Scope) -> None:
        if isinstance(stmt, cst.FunctionDef):
            self._function(stmt, scope, ())
        else:
            self._statement(stmt, scope, ())

    def _function(self, fn: cst.FunctionDef, scope: Scope, path: tuple[str, ...]) -> None:
        ctx = self.ctx
        line = ctx.line(fn)
        for dec in fn.decorators:
            if ctx.is_df(dec.decorator, "region", scope, line):
                scope.bind(fn.name.value, line, value=RegionRef(region(ctx, fn, dec, scope, path)))
                return
        inner = Scope(scope, line)
        for p in all_params(fn.params):
            inner.bind_unknown(p.name.value, line)
        if not path:
            ctx.model.functions.append(Function(fn.name.value, ctx.range(fn.name), ctx.range(fn)))
        self._block(body(fn), inner, path + (fn.name.value,))

    def _statement(self, stmt: cst.CSTNode, scope: Scope, path: tuple[str, ...]) -> None:
        """Builds and calls of built modules in one statement, then its nested bodies."""
        line = self.ctx.line(stmt)
        if isinstance(stmt, (cst.Assign, cst.AnnAssign)) and stmt.value is not None:
            self.builds.assignment(stmt, scope, line, path)
        calls = calls_in(stmt)
        calls.sort(key=lambda c: self.ctx.range(c).start)  # field order is not source order (`a if b else c`)
        for call in calls:
            string_layout(self.ctx, call)
            self.builds.call(call, scope, line, path)
        if isinstance(stmt, COMPOUND):
            self._visit(compound_bodies(stmt), scope, path)
