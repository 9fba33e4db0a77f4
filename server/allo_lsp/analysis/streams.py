"""A region's stream declarations: `s: Stream[T, depth]` (and stream arrays `...[P0, P1]`), and
the removed `s = df.pipe(...)` / `df.array(df.pipe(...), shape=...)` with their modern spelling."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import Scope
from allo_lsp.analysis.model import Region, RemovedSyntax, Stream
from allo_lsp.analysis.syntax import subscript_root
from allo_lsp.analysis.types import StreamType


def declared_stream(ctx: Context, stmt: cst.AnnAssign, rscope: Scope, region: Region) -> None:
    """`name: Stream[...]` in the region's body; any other annotated assignment is not a stream."""
    if not isinstance(stmt.target, cst.Name):
        return
    ann = stmt.annotation.annotation
    root = subscript_root(ann)
    if isinstance(root, cst.Call):  # `Stream(int32, 4)`: malformed, but meant as a stream
        root = root.func
    if not (isinstance(root, cst.Name) and root.value == "Stream"):
        return
    value = ctx.evaluator.annotation(ann, rscope, ctx.line(stmt))
    region.streams.append(
        Stream(
            name=stmt.target.value,
            range=ctx.range(stmt.target),
            annotation=ctx.text(ann),
            annotation_range=ctx.range(ann),
            type=value if isinstance(value, StreamType) else None,
            well_formed=_well_formed(ann),
            has_value=stmt.value is not None,
        )
    )


def legacy_pipe(ctx: Context, stmt: cst.Assign, rscope: Scope, region: Region) -> None:
    """`s = df.pipe(dtype, shape=(), depth=2)`: a stream, and removed syntax with its replacement."""
    line = ctx.line(stmt)
    value, dims = _legacy_array(ctx, stmt.value, rscope, line)
    if not (isinstance(value, cst.Call) and ctx.is_df(value.func, "pipe", rscope, line)):
        return
    names = [t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)]
    for t in stmt.targets:
        if isinstance(t.target, cst.Name):
            region.streams.append(
                Stream(
                    name=t.target.value,
                    range=ctx.range(t.target),
                    annotation=ctx.text(value),
                    annotation_range=ctx.range(value),
                    type=None,
                    legacy_pipe=True,
                    has_value=True,
                )
            )
    # Each argument of `df.pipe` may be passed by position too.
    positional = [ctx.text(a.value) for a in value.args if a.keyword is None]
    passed = dict(zip(("dtype", "shape", "depth"), positional))
    passed |= {a.keyword.value: ctx.text(a.value) for a in value.args if a.keyword}
    dtype, depth = passed.get("dtype", "int32"), passed.get("depth", "2")
    replacement = f"{names[0]}: Stream[{dtype}, {depth}]{dims}" if names else None
    region.removed_syntax.append(RemovedSyntax("df.pipe", ctx.range(stmt), replacement))


def _legacy_array(ctx: Context, value, rscope: Scope, line: int) -> tuple[cst.BaseExpression, str]:
    """`df.array(df.pipe(...), shape=(P0, P1))`, the removed form of a stream array: the
    `df.pipe(...)` inside and the dimensions (`[P0, P1]`) its modern spelling takes."""
    if not (isinstance(value, cst.Call) and ctx.is_df(value.func, "array", rscope, line) and value.args):
        return value, ""
    shape = next((a.value for a in value.args if a.keyword and a.keyword.value == "shape"), None)
    if shape is None and len(value.args) > 1 and value.args[1].keyword is None:
        shape = value.args[1].value
    items = [e.value for e in shape.elements] if isinstance(shape, (cst.Tuple, cst.List)) else []
    dims = f"[{', '.join(ctx.text(i) for i in items)}]" if items else ""
    return value.args[0].value, dims


def _well_formed(ann: cst.BaseExpression) -> bool:
    """`Stream[T, depth]` or `Stream[T, depth][dims...]`, nothing else."""
    node = ann
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Subscript):
        node = node.value
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 2
        and all(isinstance(el.slice, cst.Index) for el in node.slice)
    )
