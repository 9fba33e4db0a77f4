"""`Layout("S0R")`: the removed string form of a layout (`[S(0), R]` today), recorded with its
replacement for the quick fix."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.model import RemovedSyntax
from allo_lsp.analysis.syntax import dotted, string


def string_layout(ctx: Context, node: cst.CSTNode) -> None:
    """Record `node` when it is `Layout("<spec>")`, once per range."""
    if not (isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "Layout" and node.args):
        return
    spec = string(node.args[0].value)
    where = ctx.range(node)
    found = ctx.model.string_layouts
    if spec is not None and all(r.range != where for r in found):
        found.append(RemovedSyntax("string layout", where, _layout_list(spec)))


def annotation_layouts(ctx: Context, ann) -> None:
    """`int32[M, N] @ Layout("S0R")` in a parameter's annotation."""
    if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.MatrixMultiply):
        string_layout(ctx, ann.right)


def _layout_list(spec: str) -> str | None:
    """`"S0R"` -> `[S(0), R]`; None when the string is not a layout."""
    out, i = [], 0
    while i < len(spec):
        if spec[i] == "R":
            out.append("R")
            i += 1
        elif spec[i] == "S" and i + 1 < len(spec) and spec[i + 1].isdigit():
            out.append(f"S({spec[i + 1]})")
            i += 2
        else:
            return None
    return f"[{', '.join(out)}]" if out else None
