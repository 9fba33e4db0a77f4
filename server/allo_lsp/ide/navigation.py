"""Go to definition and find references, within one file.

Definition: a name in `args=[...]` -> the region parameter; a stream use -> its declaration; a
call of a built module -> the region; a kernel parameter use -> the parameter.
References of a region parameter follow its kernel bindings: the names in `args=[...]`, the
kernel parameters bound to it and their uses in kernel bodies.
"""

from __future__ import annotations

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Position, Range, Region, RegionParam
from allo_lsp.ide.at import CALL, CAPTURED, KERNEL_ARG, KERNEL_PARAM, PARAM, STREAM_USE, hits


def definition(analysis: Analysis, pos: Position) -> Range | None:
    for hit in hits(analysis.model, pos):
        if hit.kind == STREAM_USE:
            return hit.stream.range
        if hit.kind in (KERNEL_ARG, CAPTURED):
            return hit.param.range
        if hit.kind == KERNEL_PARAM and not hit.declaration:
            return hit.kernel_param.range
        if hit.kind == CALL:
            return hit.call.region.range
    return None


def references(analysis: Analysis, pos: Position, include_declaration: bool = True) -> list[Range]:
    found = _param_at(analysis, pos)
    if found is None:
        return []
    region, param = found
    out = [param.range] if include_declaration else []
    for kernel in region.kernels:
        for arg in kernel.args or ():
            if arg.name == param.name:
                out.append(arg.range)
        for kp in kernel.params:
            if kp.bound_to == param.name:
                out.append(kp.range)
                out += kp.access.uses
        if param.name in kernel.captured:
            out += kernel.captured[param.name].uses
    return sorted(set(out), key=lambda r: (r.start, r.end))


def _param_at(analysis: Analysis, pos: Position) -> tuple[Region, RegionParam] | None:
    """The region parameter named, bound or used at `pos`."""
    for hit in hits(analysis.model, pos):
        if hit.kind in (PARAM, KERNEL_ARG, KERNEL_PARAM, CAPTURED) and hit.param is not None:
            return hit.region, hit.param
    return None
