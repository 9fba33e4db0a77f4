"""A `@df.region()` definition: its type parameters and parameters, its streams and kernels, and
then what the kernels' bodies tell of each parameter (which kernels use it, in which direction)."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import ConstExprType, Scope, TypeParam
from allo_lsp.analysis.kernels import kernel
from allo_lsp.analysis.model import BodyStatement, Direction, Range, Region, RegionParam, RemovedSyntax
from allo_lsp.analysis.scopes import bind_statement
from allo_lsp.analysis.streams import declared_stream, legacy_pipe
from allo_lsp.analysis.string_layouts import annotation_layouts
from allo_lsp.analysis.syntax import all_params, body, flatten
from allo_lsp.analysis.types import AlloType


def region(ctx: Context, fn: cst.FunctionDef, dec: cst.Decorator, scope: Scope, path: tuple[str, ...]) -> Region:
    """The region, added to the model before its body is read (its kernels may call it)."""
    line = ctx.line(fn)
    rscope = Scope(scope, line)
    generics = _type_params(fn, rscope, line)
    params = []
    for p in all_params(fn.params):
        ann = p.annotation.annotation if p.annotation else None
        typ = ctx.evaluator.annotation(ann, rscope, line) if ann is not None else None
        params.append(
            RegionParam(
                name=p.name.value,
                range=ctx.range(p.name),
                annotation=ctx.text(ann) if ann is not None else "",
                annotation_range=ctx.range(ann) if ann is not None else None,
                type=typ if isinstance(typ, AlloType) else None,
            )
        )
        rscope.bind_unknown(p.name.value, line)
    found = Region(
        name=fn.name.value,
        range=ctx.range(fn.name),
        decorator_range=ctx.range(dec),
        def_range=ctx.range(fn),
        params=params,
        kernels=[],
        streams=[],
        generic_params=generics,
        params_range=ctx.range(fn.params),
        scope_path=path,
    )
    ctx.model.regions.append(found)
    for p in all_params(fn.params):
        if p.annotation:
            annotation_layouts(ctx, p.annotation.annotation)
    _streams_and_kernels(ctx, fn, rscope, found)
    _finish(found)
    return found


def _type_params(fn: cst.FunctionDef, rscope: Scope, line: int) -> list[str]:
    """`def inner[P0, P1](...)`: the names, bound in the region's scope as type parameters."""
    names = []
    for tp in fn.type_parameters.params if fn.type_parameters is not None else ():
        name = getattr(tp.param, "name", None)
        if isinstance(name, cst.Name):
            names.append(name.value)
            rscope.bind(name.value, line, value=TypeParam(name.value))
    return names


def _streams_and_kernels(ctx: Context, fn: cst.FunctionDef, rscope: Scope, found: Region) -> None:
    """Streams and kernels, after every name of the body is bound (a kernel may use a stream
    declared below it)."""
    statements = list(flatten(body(fn)))
    for stmt in statements:
        bind_statement(ctx, stmt, rscope)
    for stmt in statements:
        declared = len(found.streams), len(found.kernels)
        if isinstance(stmt, cst.AnnAssign):
            declared_stream(ctx, stmt, rscope, found)
        elif isinstance(stmt, cst.Assign):
            legacy_pipe(ctx, stmt, rscope, found)
        elif isinstance(stmt, cst.FunctionDef):
            line = ctx.line(stmt)
            dec = next((d for d in stmt.decorators if ctx.is_df(d.decorator, "kernel", rscope, line)), None)
            if dec is not None:
                found.kernels.append(kernel(ctx, stmt, dec, rscope, found))
        if declared == (len(found.streams), len(found.kernels)):
            kind = _other_statement(ctx, stmt, rscope)
            if kind is not None:
                found.other_statements.append(BodyStatement(kind, _head(ctx, stmt)))


# What a region's body may hold besides streams and kernels, which Allo reads and ignores.
_INERT = (cst.Pass, cst.Import, cst.ImportFrom)
_KINDS = {
    cst.Assign: "assignment",
    cst.AugAssign: "assignment",
    cst.AnnAssign: "declaration",
    cst.FunctionDef: "function without @df.kernel",
    cst.ClassDef: "class",
    cst.If: "if statement",
    cst.For: "for loop",
    cst.While: "while loop",
    cst.With: "with statement",
    cst.Try: "try statement",
    cst.Return: "return statement",
}


def _head(ctx: Context, stmt: cst.CSTNode) -> Range:
    """Where to show a statement: a definition's name, a compound statement's keyword (not its
    whole body), a simple statement whole."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return ctx.range(stmt.name)
    where = ctx.range(stmt)
    keyword = _KEYWORDS.get(type(stmt))
    if keyword is None:
        return where
    start = where.start
    return Range.of(start.line, start.column, start.line, start.column + len(keyword))


_KEYWORDS = {cst.If: "if", cst.For: "for", cst.While: "while", cst.With: "with", cst.Try: "try"}


def _other_statement(ctx: Context, stmt: cst.CSTNode, rscope: Scope) -> str | None:
    """The kind of a statement the region's body should not hold, None for one it may: a
    `ConstExpr` declaration, a docstring, `pass`, `...`."""
    if isinstance(stmt, cst.AnnAssign):
        typ = ctx.evaluator.annotation(stmt.annotation.annotation, rscope, ctx.line(stmt))
        if isinstance(typ, ConstExprType):
            return None
    if isinstance(stmt, _INERT):
        return None
    if isinstance(stmt, cst.Expr):
        value = stmt.value
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
            return None
        return "call" if isinstance(value, cst.Call) else "expression"
    return _KINDS.get(type(stmt), "statement")


def _finish(found: Region) -> None:
    """Streams' puts and gets, and each parameter's kernels and direction, from the kernels' uses."""
    for use in found.stream_uses:
        stream = found.stream(use.stream)
        if stream is not None:
            (stream.puts if use.op == "put" else stream.gets).append(use)
    for p in found.params:
        accesses = [(k.name, kp.access) for k in found.kernels for kp in k.params if kp.bound_to == p.name]
        accesses += [(k.name, k.captured[p.name]) for k in found.kernels if p.name in k.captured]
        p.kernels = list(dict.fromkeys(name for name, _ in accesses))
        reads = any(a.reads for _, a in accesses)
        writes = any(a.writes for _, a in accesses)
        if not accesses:
            p.direction = Direction.UNUSED
        elif writes:
            p.direction = Direction.INOUT if reads else Direction.OUT
        else:
            p.direction = Direction.IN
    if not found.params and any(k.params and k.args is None for k in found.kernels):
        found.removed_syntax.append(RemovedSyntax("parameter-less region", found.range))
