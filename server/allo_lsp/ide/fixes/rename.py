"""ADF016, ADF004: rename a kernel parameter, and its uses in that kernel only."""

from __future__ import annotations

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source


def rename_kernel_param(source: Source, model: FileModel, problem: Problem) -> Fix:
    kernel = kernel_of(region_of(model, problem), problem.data.get("kernel"))
    fn = source.function(kernel.range)
    old = problem.data["param"]
    new = names.fresh(problem.data["new_name"], names.taken(source, model, fn))
    # A kernel's parameters are bound by position (args=[...]): the name is the kernel's own.
    return Fix(f"Rename '{old}' to '{new}'", names.rename(source, fn, old, new), safe=True)
