"""A `@df.kernel(mapping=[...], args=[...])` definition: its decorator's mapping and bindings,
its parameters (typed, bound to region parameters, what names they shadow), then its body
(`kernel_body.scan_kernel_body`)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import ConstExprType, FunctionRef, RegionRef, Scope
from allo_lsp.analysis.kernel_body import scan_kernel_body
from allo_lsp.analysis.model import ArgName, Kernel, KernelParam, Range, Region
from allo_lsp.analysis.string_layouts import annotation_layouts
from allo_lsp.analysis.syntax import all_params
from allo_lsp.analysis.types import AlloType, DType


def kernel(ctx: Context, fn: cst.FunctionDef, dec: cst.Decorator, rscope: Scope, region: Region) -> Kernel:
    line = ctx.line(fn)
    call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
    keywords: dict[str, tuple[int, cst.Arg]] = {}  # name -> (position among the keywords, argument)
    for i, arg in enumerate([a for a in call.args if a.keyword] if call else []):
        keywords.setdefault(arg.keyword.value, (i, arg))  # type: ignore[union-attr]
    mapping, mapping_range, mapping_index, mapping_keyword_range = _mapping(ctx, keywords.get("mapping"), rscope, line)
    args, args_range, args_is_list = _args(ctx, keywords.get("args"))
    k = Kernel(
        name=fn.name.value,
        range=ctx.range(fn.name),
        decorator_range=ctx.range(dec),
        mapping=mapping,
        mapping_range=mapping_range,
        mapping_keyword_index=mapping_index,
        mapping_keyword_range=mapping_keyword_range,
        args=args,
        args_range=args_range,
        args_is_list=args_is_list,
        body_range=ctx.range(fn.body),
    )
    kscope = Scope(rscope, line)
    for i, p in enumerate(all_params(fn.params)):
        k.params.append(_param(ctx, p, args[i] if args and i < len(args) else None, rscope, region, line))
        kscope.bind_unknown(p.name.value, line)
    scan_kernel_body(fn, k, region, ctx, kscope)
    return k


def _mapping(ctx: Context, keyword: tuple[int, cst.Arg] | None, rscope: Scope, line: int) -> tuple:
    """`mapping=[P0, P1]` folded (None for an extent that does not fold), its range, its position
    among the keywords and the keyword's range; all None without `mapping=`."""
    if keyword is None:
        return None, None, None, None
    index, arg = keyword
    node = arg.value
    mapping = None
    value = ctx.evaluator.eval(node, rscope, line)
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if isinstance(value, tuple):
        mapping = tuple(v if isinstance(v, int) and not isinstance(v, bool) else None for v in value)
    elif isinstance(node, (cst.List, cst.Tuple)):
        mapping = tuple(None for _ in node.elements)
    return mapping, ctx.range(node), index, ctx.range(arg)


def _args(ctx: Context, keyword: tuple[int, cst.Arg] | None) -> tuple[list[ArgName] | None, Range | None, bool]:
    """`args=[A, B]`: the names bound to the kernel's parameters in order (None for an element
    that is not a name), its range, and whether it is a list literal at all."""
    if keyword is None:
        return None, None, False
    node = keyword[1].value
    if not isinstance(node, cst.List):
        return None, ctx.range(node), False
    names = [
        ArgName(
            el.value.value if isinstance(el.value, cst.Name) and isinstance(el, cst.Element) else None,
            ctx.range(el.value),
        )
        for el in node.elements
    ]
    return names, ctx.range(node), True


def _param(ctx: Context, p: cst.Param, arg: ArgName | None, rscope: Scope, region: Region, line: int) -> KernelParam:
    ann = p.annotation.annotation if p.annotation else None
    typ = ctx.evaluator.annotation(ann, rscope, line) if ann is not None else None
    annotation_layouts(ctx, ann)
    kp = KernelParam(
        name=p.name.value,
        range=ctx.range(p.name),
        annotation=ctx.text(ann) if ann is not None else "",
        annotation_range=ctx.range(ann) if ann is not None else None,
        type=typ if isinstance(typ, AlloType) else None,
        shadows=_shadowed(ctx, p.name.value, rscope, region, line),
        stateful=_stateful(ann),
    )
    if arg is not None and arg.name and region.param(arg.name):
        kp.bound_to = arg.name
        kp.binding_range = arg.range
    return kp


def _stateful(ann: cst.BaseExpression | None) -> bool:
    """`T @ Stateful` (`T @ stateful` in the builds before it): what Allo marks a kernel-local
    variable with."""
    if not (isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.MatrixMultiply)):
        return False
    right = ann.right
    name = right.value if isinstance(right, cst.Name) else getattr(right, "attr", cst.Name("_")).value
    return name in ("Stateful", "stateful")


def _shadowed(ctx: Context, name: str, rscope: Scope, region: Region, line: int) -> str | None:
    """What visible symbol a kernel parameter name would shadow in Allo's symbol table, which
    holds the region's names, the enclosing functions' and closures', and the module's globals
    as they are when the region is built (`A = ...` in a `__main__` block included)."""
    if region.param(name):
        return f"region parameter '{name}'"
    found = rscope.find(name, line)
    if found is None:
        return None
    binding, where = found
    if where is rscope:
        return f"'{name}' declared in region '{region.name}'"
    if isinstance(binding.value, (RegionRef, FunctionRef)):
        return f"function '{name}' (line {binding.line + 1})"
    if where.parent is not None and not _collected_local(ctx.evaluator.lookup(name, rscope, line)):
        return None
    return f"'{name}' (line {binding.line + 1})"


def _collected_local(value: Any) -> bool:
    """Whether Allo puts a local of an enclosing function into the symbol table: it collects
    only ints, floats, lists, Allo types and functions from the calling frames
    (`allo/ir/utils.py: get_global_vars`), so `A = np.zeros(...)` in a test does not count."""
    return isinstance(value, (int, float, tuple, AlloType, DType, ConstExprType))
