"""ADF016, ADF004: rename a kernel parameter, and its uses in that kernel only; ADF095: rename a
loop variable, and its uses in that loop only."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel
from allo_lsp.analysis.walk import walk
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source
from allo_lsp.protocol.build_errors import LOOP_ITERATOR


def rename_kernel_param(source: Source, model: FileModel, problem: Problem) -> Fix:
    kernel = kernel_of(region_of(model, problem), problem.data.get("kernel"))
    fn = source.function(kernel.range)
    old = problem.data["param"]
    new = names.fresh(problem.data["new_name"], names.taken(source, model, fn))
    # A kernel's parameters are bound by position (args=[...]): the name is the kernel's own.
    return Fix(f"Rename '{old}' to '{new}'", names.rename(source, fn, old, new), safe=True)


def rename_loop_variable(source: Source, model: FileModel, problem: Problem) -> Fix:
    """ADF095 of a loop variable naming a symbol in scope: it and its uses in the loop's body get a
    name free in the file. Python reads those uses as the loop's variable too, so the loop means
    what it meant; after the loop Allo's scope has the symbol again, and so do the uses there."""
    if LOOP_ITERATOR not in problem.message:
        raise Unavailable("not a loop variable (a declaration's type is the user's to choose)")
    kernel = source.function(kernel_of(region_of(model, problem), problem.data.get("kernel")).range)
    loop, target = _loop_of(source, kernel, problem)
    old = target.value
    if loop.orelse is not None or _binds(loop.body, old):
        raise Unavailable("the body binds the name again: its uses are not all the loop's")
    new = names.fresh(old, names.taken(source, model, kernel))
    edits = [source.replace(source.range(n), new) for n in [target, *names.uses(loop.body, old)]]
    return Fix(f"Rename the loop variable '{old}' to '{new}'", edits, safe=True)


def _loop_of(source: Source, kernel: cst.FunctionDef, problem: Problem) -> tuple[cst.For, cst.Name]:
    """The `for` of `kernel` whose variable (or one of `for i, j in allo.grid(...)`) is at the problem."""
    target = source.find(cst.Name, problem.range)
    for node in walk(kernel.body, prune=(cst.FunctionDef, cst.Lambda)):
        if isinstance(node, cst.For) and target in _targets(node.target):
            return node, target
    raise Unavailable("no loop variable at the problem")


def _targets(target: cst.BaseExpression) -> list[cst.Name]:
    """The names a target binds: `i`, `i, j`, `(i, *rest)`; not `b[i]` or `x.f`, which read them."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _targets(e.value)]
    if isinstance(target, cst.StarredElement):
        return _targets(target.value)
    return []


def _binds(body: cst.CSTNode, name: str) -> bool:
    """`name` is bound in `body`: assigned, a loop's variable, a parameter, a function, an import."""
    for node in walk(body):
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor | cst.NamedExpr):
            bound = _targets(node.target)
        elif isinstance(node, cst.Param | cst.FunctionDef | cst.ClassDef):
            bound = [node.name]
        elif isinstance(node, cst.Import | cst.ImportFrom | cst.Global | cst.Nonlocal | cst.WithItem):
            return True  # rarer forms in a kernel: judged to bind it
        else:
            continue
        if any(n.value == name for n in bound):
            return True
    return False
