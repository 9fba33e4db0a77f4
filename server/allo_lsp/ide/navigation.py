"""Go to definition and find references, within one file.

Definition: a name in `args=[...]` -> the region parameter; a stream use -> its declaration; a
call of a built module -> the region; a kernel parameter use -> the parameter.
References of a region parameter follow its kernel bindings: the names in `args=[...]`, the
kernel parameters bound to it and their uses in kernel bodies.
"""

from __future__ import annotations

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Position, Range, Region, RegionParam


def definition(analysis: Analysis, pos: Position) -> Range | None:
    for region in analysis.model.regions:
        if not region.def_range.contains(pos):
            continue
        for use in region.stream_uses:
            stream = region.stream(use.stream)
            if stream is not None and use.range.contains(pos):
                return stream.range
        for kernel in region.kernels:
            for arg in kernel.args or ():
                p = region.param(arg.name) if arg.name else None
                if p is not None and arg.range.contains(pos):
                    return p.range
            for kp in kernel.params:
                if any(u.contains(pos) for u in kp.access.uses):
                    return kp.range
            for name, access in kernel.captured.items():
                p = region.param(name)
                if p is not None and any(u.contains(pos) for u in access.uses):
                    return p.range
    for call in analysis.model.calls:
        if call.range.contains(pos):
            return call.region.range
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
    for region in analysis.model.regions:
        if not region.def_range.contains(pos):
            continue
        for p in region.params:
            if p.range.contains(pos):
                return region, p
        for kernel in region.kernels:
            for arg in kernel.args or ():
                if arg.range.contains(pos) and arg.name and region.param(arg.name):
                    return region, region.param(arg.name)
            for kp in kernel.params:
                hit = kp.range.contains(pos) or any(u.contains(pos) for u in kp.access.uses)
                if hit and kp.bound_to and region.param(kp.bound_to):
                    return region, region.param(kp.bound_to)
            for name, access in kernel.captured.items():
                if any(u.contains(pos) for u in access.uses) and region.param(name):
                    return region, region.param(name)
    return None
