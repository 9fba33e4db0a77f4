"""ADF012 args-count: `args` count differs from the kernel's parameter count

## What it does
Flags a kernel whose `args=[...]` has more or fewer names than the kernel has parameters
(a kernel with parameters and no `args` at all counts as zero).

## Why is this bad?
`args` binds region parameters to the kernel's parameters by position; Allo stops the build
with this message when the counts differ.

## Example
```python
@df.kernel(mapping=[1], args=[A])
def k(local_A: int32[N], local_B: int32[N]): ...
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A, B])
def k(local_A: int32[N], local_B: int32[N]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            expected = len(kernel.params)
            if kernel.args is None:
                # No `args=`: fine without parameters; the old API when the region has none (ADF040).
                if kernel.args_range is not None or not expected or not region.params:
                    continue
                got, where = 0, kernel.decorator_range
            else:
                got, where = len(kernel.args), kernel.args_range or kernel.decorator_range
            if got != expected:
                yield Finding(
                    where,
                    f"Invalid @df.kernel decorator on function '{kernel.name}': 'args' length "
                    f"mismatch (expected {expected}, got {got}).",
                    {"region": region.name, "kernel": kernel.name},
                )
