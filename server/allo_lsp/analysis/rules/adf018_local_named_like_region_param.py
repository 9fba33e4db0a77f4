"""ADF018 local-named-like-region-param: a kernel-local variable named like a region parameter

## What it does
Flags a name a kernel's body assigns (`B = ...`, `B: int32 = 0`) that is also a
parameter of the kernel's region, when the kernel has no parameter of that name itself (that
case is ADF016).

## Why is this bad?
A region's parameters are visible inside its kernels, so Allo takes the name for the region's
array, not a new local: the assignment is checked against the array's type and stops with
`Invalid assignment to B, type mismatch`, or writes the array where a scratch value was meant.

## Example
```python
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[N]):
        B: int32 = 0
```
Use instead:
```python
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[N]):
        b_sum: int32 = 0
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        params = {p.name for p in region.params}
        for kernel in region.kernels:
            own = {p.name for p in kernel.params}
            reported = set()
            for local in kernel.local_bindings:
                if local.name not in params or local.name in own or local.name in reported:
                    continue
                reported.add(local.name)  # the first binding: renaming it is the fix
                yield Finding(
                    local.range,
                    f"'{local.name}' is a parameter of region '{region.name}', visible in kernel "
                    f"'{kernel.name}': Allo takes this for the region's array and stops with "
                    f"'Invalid assignment to {local.name}, type mismatch'. Give the local another name.",
                    {"region": region.name, "kernel": kernel.name, "name": local.name},
                )
