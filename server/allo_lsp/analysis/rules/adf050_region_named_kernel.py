"""ADF050 region-named-kernel: a region named `kernel`

## What it does
Flags a `@df.region()` function named `kernel`.

## Why is this bad?
The region becomes the top function, and Vitis HLS rejects that name:
`kernel is a reserved keyword for vitis_hls`.

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

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        if region.name == "kernel":
            yield Finding(
                region.range,
                "kernel is a reserved keyword for vitis_hls: rename the region (e.g. 'top') before synthesizing it.",
                {"region": region.name},
            )
