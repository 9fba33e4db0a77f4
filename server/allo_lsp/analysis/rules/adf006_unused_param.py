"""ADF006 unused-param: region parameter used by no kernel

## What it does
Flags a region parameter that no kernel binds in its `args=[...]` or names in its body.

## Why is this bad?
It stays in the compiled signature (its `itypes` character is `?`), so callers must still pass it,
but nothing reads or writes it: usually a forgotten binding.

## Example
```python
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[N]): ...
```
Use instead:
```python
def top(A: int32[N]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[N]): ...
```
"""

from allo_lsp.analysis.model import Direction
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        if not region.bindings_known:  # an unreadable args=... is ADF013; guessing would mislead
            continue
        if not region.kernels:  # still being written: no kernel can bind anything yet
            continue
        for p in region.params:
            if p.direction == Direction.UNUSED:
                yield Finding(
                    p.range,
                    f"Region parameter '{p.name}' is bound by no kernel: it stays in the compiled "
                    f"signature but nothing reads or writes it. Bind it in a kernel's args=[...] or "
                    f"remove it.",
                    {"region": region.name, "param": p.name},
                )
