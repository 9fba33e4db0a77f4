"""ADF003, ADF005: reorder a region's parameters, and the arguments of every call of it in the file.

Calls are the built module's (`mod(a, b, c)`) and a region's direct calls from kernel bodies
(`inner(local_A, local_B)` in hierarchical designs). A call that passes keywords, `*args` or
another number of arguments is left alone: permuting it would be a guess.

Older builds compile the kernel-appearance order, so when the new order is one they can reach,
each kernel's `args=[...]` (with the parameters bound to them) follows it too: otherwise fixing
ADF005 would raise ADF003, whose fix would undo it.
"""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import Direction, FileModel, Kernel, Range, Region
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, Unavailable, counted, region_of
from allo_lsp.ide.fixes.source import Source


def legacy_order(source: Source, model: FileModel, problem: Problem) -> Fix:
    """The order older builds compile (kernel order); unused parameters keep theirs, at the end."""
    region = region_of(model, problem)
    declared = [p.name for p in region.params]
    bound = [n for n in problem.data.get("order", ()) if n in declared]
    return reorder(source, model, region, bound + [n for n in declared if n not in bound])


def outputs_last(source: Source, model: FileModel, problem: Problem) -> Fix:
    """Read-only (and unused) parameters first, written ones last, each group in its order."""
    region = region_of(model, problem)
    written = [p.name for p in region.params if p.direction in (Direction.OUT, Direction.INOUT)]
    return reorder(source, model, region, [p.name for p in region.params if p.name not in written] + written)


def reorder(source: Source, model: FileModel, region: Region, order: list[str]) -> Fix:
    declared = [p.name for p in region.params]
    fn = source.function(region.range)
    params = names.params(fn)
    if [p.name.value for p in params] != declared or sorted(order) != sorted(declared):
        raise Unavailable("the parameters differ from the model's")
    permutation = [declared.index(n) for n in order]
    if permutation == sorted(permutation):
        raise Unavailable("already in that order")
    edits = source.permute([_param_range(source, p) for p in params], permutation)
    kernels = 0
    for kernel, kernel_order in _kernel_orders(region, order):
        kfn = names.params(source.function(kernel.range))
        edits += source.permute([a.range for a in kernel.args or ()], kernel_order)
        edits += source.permute([_param_range(source, p) for p in kfn], kernel_order)
        kernels += 1
    calls = 0
    for call in _calls(source, model, region):
        args = call.args
        if len(args) != len(declared) or any(a.keyword is not None or a.star for a in args):
            continue
        edits += source.permute([source.range(a) for a in args], permutation)
        calls += 1
    title = f"Reorder {region.name}(...) to {region.name}({', '.join(order)})"
    details = [counted(n, noun) for n, noun in ((kernels, "kernel"), (calls, "call")) if n]
    if details:
        title += f" and update {', '.join(details)}"
    # The built module's argument order changes: callers this file does not hold break.
    return Fix(title, edits, safe=False)


def _kernel_orders(region: Region, order: list[str]) -> list[tuple[Kernel, list[int]]]:
    """The kernels whose bindings must be permuted for older builds to compile `order`, with
    each one's permutation; none when older builds already do, or cannot (a kernel binds a
    parameter that `order` puts after one first bound by a later kernel)."""
    rank = {name: i for i, name in enumerate(order)}
    bindings = [[(kp.name, kp.bound_to) for kp in k.params] for k in region.kernels]
    plans = []
    for kernel, pairs in zip(region.kernels, bindings):
        bound = [b for _, b in pairs if b is not None]
        if kernel.args is None or not len(kernel.args) == len(bound) == len(pairs):
            plans.append(list(range(len(pairs))))  # unbound or miscounted: left as written
        else:
            plans.append(sorted(range(len(pairs)), key=lambda i: rank[bound[i]]))
    wanted = [n for n in order if n in _legacy_order(bindings)]
    if _legacy_order(bindings) == wanted:
        return []
    permuted = [[pairs[i] for i in plan] for pairs, plan in zip(bindings, plans)]
    if _legacy_order(permuted) != wanted:
        return []
    return [(k, plan) for k, plan in zip(region.kernels, plans) if plan != sorted(plan)]


def _legacy_order(bindings: list[list[tuple[str, str | None]]]) -> list[str]:
    """`Region.legacy_order` for kernels bound as given: top arguments keyed on the kernel's
    local parameter name, in kernel-appearance order."""
    first: dict[str, str] = {}
    for pairs in bindings:
        for local, bound in pairs:
            if bound is not None:
                first.setdefault(local, bound)
    return list(first.values())


def _param_range(source: Source, param: cst.Param) -> Range:
    """`name: annotation`, the whole parameter (libcst's own position covers only the name)."""
    start = source.range(param.name)
    end = source.range(param.annotation.annotation) if param.annotation else start
    return Range(start.start, end.end)


def _calls(source: Source, model: FileModel, region: Region) -> list[cst.Call]:
    found = [source.find(cst.Call, c.call_range) for c in model.calls_of(region)]
    for outer in model.regions:
        for kernel in outer.kernels:
            if any(sub is region for sub in kernel.subregions):
                visitor = _DirectCalls(region.name)
                source.function(kernel.range).body.visit(visitor)
                found += visitor.calls
    return found


class _DirectCalls(cst.CSTVisitor):
    """`name(...)` and, for generic regions, `name[P0, P1](...)`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func.value if isinstance(node.func, cst.Subscript) else node.func
        if isinstance(func, cst.Name) and func.value == self.name:
            self.calls.append(node)
