"""ADF003, ADF005: reorder a region's parameters, and the arguments of every call of it in the file.

Calls are the built module's (`mod(a, b, c)`) and a region's direct calls from kernel bodies
(`inner(local_A, local_B)` in hierarchical designs). A call that passes keywords, `*args` or
another number of arguments is left alone: permuting it would be a guess.

A module's call may have been written for the declaration order (fixed builds) or already for
the new one (older builds compile kernel order, which ADF003's fix declares): its arguments'
names tell which where they are region parameters placed as one order has them and the other
not (`mod(A, B, n)` for `top(A, B, n)`). The first kind is permuted, the second left as it is.
When they do not tell (literals, expressions, other names), the fix cannot know: two display-only
fixes say so, one leaving such calls as written, one permuting them as written for the
declaration order; fix-all applies neither. A kernel's direct call is bound to the `def` as
written, so it always follows the declaration.

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


def legacy_order(source: Source, model: FileModel, problem: Problem) -> list[Fix]:
    """The order older builds compile (kernel order); unused parameters keep theirs, at the end."""
    region = region_of(model, problem)
    declared = [p.name for p in region.params]
    bound = [n for n in problem.data.get("order", ()) if n in declared]
    return reorder(source, model, region, bound + [n for n in declared if n not in bound])


def outputs_last(source: Source, model: FileModel, problem: Problem) -> list[Fix]:
    """Read-only (and unused) parameters first, written ones last, each group in its order."""
    region = region_of(model, problem)
    written = [p.name for p in region.params if p.direction in (Direction.OUT, Direction.INOUT)]
    return reorder(source, model, region, [p.name for p in region.params if p.name not in written] + written)


# Which order a module's call was written for, as its arguments tell.
_DECLARED, _NEW = "declared", "new"


def reorder(source: Source, model: FileModel, region: Region, order: list[str]) -> list[Fix]:
    """The reorder, and one fix per way of reading the calls whose order cannot be told."""
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
    told: list[list[Range]] = []  # the calls written for the declaration order: permuted
    untold: list[list[Range]] = []
    kept = 0
    for call, direct in _calls(source, model, region):
        args = call.args
        if len(args) != len(declared) or any(a.keyword is not None or a.star for a in args):
            continue
        slots = [source.range(a) for a in args]
        written_for = _DECLARED if direct else _written_for([_name(a.value) for a in args], declared, order)
        if written_for == _DECLARED:
            told.append(slots)
        elif written_for == _NEW:
            kept += 1
        else:
            untold.append(slots)

    def fix(permuted: list[list[Range]], note: str, display_only: bool) -> Fix:
        moved = [e for slots in permuted for e in source.permute(slots, permutation)]
        updates = [counted(n, noun) for n, noun in ((kernels, "kernel"), (len(permuted), "call")) if n]
        title = f"Reorder {region.name}(...) to {region.name}({', '.join(order)})"
        title += f" and update {', '.join(updates)}" if updates else ""
        title += note + (f"; {counted(kept, 'call')} already in that order" if kept else "")
        # The built module's argument order changes: callers this file does not hold break.
        return Fix(title, edits + moved, safe=False, display_only=display_only)

    if not untold:
        return [fix(told, "", False)]
    return [
        fix(told, f"; {counted(len(untold), 'call')} left as written: the arguments do not tell the order", True),
        fix(told + untold, f" ({counted(len(untold), 'call')} taken as written for the declaration order)", True),
    ]


def _written_for(passed: list[str | None], declared: list[str], order: list[str]) -> str | None:
    """`_DECLARED` or `_NEW` when the region parameters the call names sit where exactly one of
    the two orders has them, at a position where the orders differ; None when it cannot be told
    (no such name, or names that fit neither or both)."""
    named = [(i, n) for i, n in enumerate(passed) if n in declared]
    telling = [(i, n) for i, n in named if declared[i] != order[i]]
    fits_declared = all(declared[i] == n for i, n in named)
    fits_new = all(order[i] == n for i, n in named)
    if not telling or fits_declared == fits_new:
        return None
    return _DECLARED if fits_declared else _NEW


def _name(node: cst.BaseExpression) -> str | None:
    return node.value if isinstance(node, cst.Name) else None


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


def _calls(source: Source, model: FileModel, region: Region) -> list[tuple[cst.Call, bool]]:
    """The region's calls in the file, each with whether it is a kernel's direct call."""
    found = [(source.find(cst.Call, c.call_range), False) for c in model.calls_of(region)]
    for outer in model.regions:
        for kernel in outer.kernels:
            if any(sub is region for sub in kernel.subregions):
                visitor = _DirectCalls(region.name)
                source.function(kernel.range).body.visit(visitor)
                found += [(call, True) for call in visitor.calls]
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
