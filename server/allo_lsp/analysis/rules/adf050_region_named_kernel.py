"""ADF050 region-named-kernel: a region named `kernel`

## What it does
Flags a `@df.region()` function named `kernel` when the file builds it for `vitis_hls` (the
default target) or `tapa`, or does not build it at all (a synthesis job builds for
`vitis_hls`). Not reported when every `df.build` of the region targets another platform
`df.build` knows (`simulator`, `catapult`, `xls`, ...).

## Why is this bad?
The region becomes the top function, and Allo rejects that name for these two platforms:
`kernel is a reserved keyword for vitis_hls` (and `... for tapa`).

## Example
```python
@df.region()
def kernel(A: int32[N]): ...
```
Use instead:
```python
@df.region()
def top(A: int32[N]): ...
```
"""

from allo_lsp.analysis.builds import PLATFORMS
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING
_RESERVING = ("vitis_hls", "tapa")  # the platforms whose backends reserve the name (allo/backend/hls.py)


def check(ctx: Context):
    for region in ctx.model.regions:
        if region.name != "kernel":
            continue
        targets = [b.target for b in ctx.model.builds_of(region)]
        if targets and all(t in PLATFORMS and t not in _RESERVING for t in targets):
            continue
        platform = next((t for t in _RESERVING if t in targets), "vitis_hls")
        yield Finding(
            region.range,
            f"kernel is a reserved keyword for {platform}: rename the region (e.g. 'top') before synthesizing it.",
            {"region": region.name, "platform": platform},
        )
