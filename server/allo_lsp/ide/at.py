"""What is at a position of the file: one walk over the model that hover, go to definition and
find references read, each taking the first hit it has an answer for.

Hits come in source-nesting order: the region (its name or decorator), its parameters, stream
declarations and uses, then each kernel (its name or decorator, a name in `args=[...]`, a
parameter's declaration or use, a region parameter it captures), and last a call of a built module.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from allo_lsp.analysis.model import (
    FileModel,
    Kernel,
    KernelParam,
    ModuleCall,
    Position,
    Range,
    Region,
    RegionParam,
    Stream,
)

REGION, PARAM, STREAM, STREAM_USE = "region", "param", "stream", "stream_use"
KERNEL, KERNEL_ARG, KERNEL_PARAM, CAPTURED, CALL = "kernel", "kernel_arg", "kernel_param", "captured", "call"


@dataclass(frozen=True)
class Hit:
    kind: str
    range: Range  # what is under the cursor
    region: Region | None = None
    param: RegionParam | None = None  # the region parameter named, bound or used there
    stream: Stream | None = None
    kernel: Kernel | None = None
    kernel_param: KernelParam | None = None
    declaration: bool = False  # a kernel parameter's declaration, not one of its uses
    call: ModuleCall | None = None


def hits(model: FileModel, pos: Position) -> Iterator[Hit]:
    for region in model.regions:
        if region.def_range.contains(pos) or region.decorator_range.contains(pos):
            yield from _in_region(region, pos)
    for call in model.calls:
        if call.range.contains(pos):
            yield Hit(CALL, call.range, call=call)


def _in_region(region: Region, pos: Position) -> Iterator[Hit]:
    where = next((r for r in (region.range, region.decorator_range) if r.contains(pos)), None)
    if where is not None:
        yield Hit(REGION, where, region)
    for p in region.params:
        if p.range.contains(pos):
            yield Hit(PARAM, p.range, region, param=p)
    for stream in region.streams:
        if stream.range.contains(pos):
            yield Hit(STREAM, stream.range, region, stream=stream)
    for use in region.stream_uses:
        stream = region.stream(use.stream)
        if stream is not None and use.range.contains(pos):
            yield Hit(STREAM_USE, use.range, region, stream=stream)
    for kernel in region.kernels:
        yield from _in_kernel(region, kernel, pos)


def _in_kernel(region: Region, kernel: Kernel, pos: Position) -> Iterator[Hit]:
    on_arg = any(a.range.contains(pos) for a in kernel.args or ())
    if kernel.range.contains(pos):
        yield Hit(KERNEL, kernel.range, region, kernel=kernel)
    elif kernel.decorator_range.contains(pos) and not on_arg:
        yield Hit(KERNEL, kernel.decorator_range, region, kernel=kernel)
    for arg in kernel.args or ():
        p = region.param(arg.name) if arg.name else None
        if p is not None and arg.range.contains(pos):
            yield Hit(KERNEL_ARG, arg.range, region, param=p, kernel=kernel)
    for kp in kernel.params:
        bound = region.param(kp.bound_to) if kp.bound_to else None
        where = kp.range if kp.range.contains(pos) else next((u for u in kp.access.uses if u.contains(pos)), None)
        if where is not None:
            yield Hit(
                KERNEL_PARAM, where, region, param=bound, kernel=kernel, kernel_param=kp, declaration=where is kp.range
            )
    for name, access in kernel.captured.items():
        p = region.param(name)
        use = next((u for u in access.uses if u.contains(pos)), None)
        if p is not None and use is not None:
            yield Hit(CAPTURED, use, region, param=p, kernel=kernel)
