"""ADF052: say which platform `df.build` builds for: `target="simulator"` after its last argument."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.fixes.base import Fix, Unavailable
from allo_lsp.ide.fixes.source import Source


def simulator_target(source: Source, model: FileModel, problem: Problem) -> Fix:
    call = source.find(cst.Call, problem.range)
    if not call.args:
        raise Unavailable("df.build() without the region")
    last = call.args[-1]
    # After the argument itself: a trailing comma and a comment after it stay where they are.
    edit = source.insert(source.range(last.value).end, ', target="simulator"')
    return Fix('Build for the simulator: target="simulator"', [edit])
