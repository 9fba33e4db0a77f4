"""ADF070: call Allo's own function instead of `math`'s or numpy's (`np.exp` -> `allo.exp`),
importing `allo` when the file does not."""

from __future__ import annotations

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.fixes.base import Fix, Unavailable
from allo_lsp.ide.fixes.imports import ensure_module
from allo_lsp.ide.fixes.source import Source


def use_allo_function(source: Source, model: FileModel, problem: Problem) -> Fix:
    replacement = problem.data.get("replacement")
    if not replacement:
        raise Unavailable("no Allo function to call")
    written = source.text_at(problem.range)
    edits = [source.replace(problem.range, replacement)]
    edits += ensure_module(source, "allo")
    return Fix(f"Replace {written} with {replacement}", edits, safe=True)  # the same function, Allo's own
