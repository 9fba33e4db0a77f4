"""ADF005 outputs-not-last: a written parameter comes before a read-only one

## What it does
Flags a region parameter that some kernel writes when a read-only parameter comes after it. Not
reported when a `df.build` of the region passes `configs={"num_output_args": ...}`. When every
`df.build` of the region in the file targets another platform `df.build` knows (the simulator),
it is information: the region's Synthesize lens still builds for `vitis_hls` (a target that is
not a literal, or not a platform name, is checked).

## Why is this bad?
With `target="vitis_hls"` (the default target of `df.build`) Allo requires the outputs at the end
of the top function and stops with `Output arguments must appear at the end.` Only that platform
checks it (`allo/backend/hls.py`): `vhls`, `ihls`, `pynq`, `tapa`, `catapult`, `xls` and `xlscc`
builds take any order.

## Example
```python
def top(A: int32[N], B: int32[N], n: int32[1]):  # B is written, n only read
```
Use instead:
```python
def top(A: int32[N], n: int32[1], B: int32[N]):
```
"""

from allo_lsp.analysis.builds import PLATFORMS
from allo_lsp.analysis.model import Direction
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING
_CHECKED_TARGET = "vitis_hls"
_UNCHECKED = tuple(p for p in PLATFORMS if p != _CHECKED_TARGET)


def check(ctx: Context):
    for region in ctx.model.regions:
        if not region.bindings_known:  # an unreadable args=... is ADF013; guessing would mislead
            continue
        builds = ctx.model.builds_of(region)
        if builds and any(b.has_num_output_args for b in builds):
            continue
        # Built only for targets that take any order: the region's Synthesize lens still builds
        # it for vitis_hls, so the user hears of it, as information.
        elsewhere = bool(builds) and all(b.target in _UNCHECKED for b in builds)
        params = region.params
        for i, p in enumerate(params):
            if p.direction not in (Direction.OUT, Direction.INOUT):
                continue
            later = [q.name for q in params[i + 1 :] if q.direction == Direction.IN]
            if not later:
                continue
            writer = next((k for k in p.kernels), "?")
            targets = ", ".join(sorted({b.target for b in builds}))
            where = (
                f"this file builds it for {targets} only, which takes any order, but Synthesize (vitis_hls) stops with"
                if elsewhere
                else "Vitis HLS stops with"
            )
            yield Finding(
                p.range,
                f"'{p.name}' is written by kernel '{writer}' but comes before read-only "
                f"{', '.join(repr(n) for n in later)}: {where} 'Output arguments must "
                f"appear at the end.' Move the outputs last, or build with "
                f'configs={{"num_output_args": n}}.',
                {"region": region.name, "param": p.name},
                Severity.INFORMATION if elsewhere else None,
            )
