"""ADF023: the region's kernel definitions reordered so that every producer comes first."""

from __future__ import annotations

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Kernel, Position, Range
from allo_lsp.analysis.rules.stream_graph import StreamGraph
from allo_lsp.ide.fixes.base import Fix, Unavailable, region_of
from allo_lsp.ide.fixes.source import Source


def producers_first(source: Source, model: FileModel, problem: Problem) -> Fix:
    """Each kernel moves whole, from the comment lines right above its decorators to its last
    line; what lies between kernels (stream declarations, blank lines) stays put. Not marked safe:
    older Allo builds order the top function's arguments by kernel appearance (ADF003), so the
    move can change the signature such a build compiles."""
    region = region_of(model, problem)
    names = [k.name for k in region.kernels]
    if len(set(names)) != len(names):
        raise Unavailable("two kernels share a name")
    order = StreamGraph.of(region).producers_first()
    if order == names:
        raise Unavailable("the kernels already follow their streams")
    slots = [_slot(source, k) for k in region.kernels]
    return Fix(
        f"Define the kernels producers first ({', '.join(order)})",
        source.permute(slots, [names.index(n) for n in order]),
    )


def _slot(source: Source, kernel: Kernel) -> Range:
    fn = source.function(kernel.range)
    first = min([source.range(d).start.line for d in fn.decorators] + [source.range(fn).start.line])
    while first > 0 and source.lines[first - 1].strip().startswith("#"):
        first -= 1
    return Range(Position(first, 0), source.line_end(source.range(fn).end.line))
