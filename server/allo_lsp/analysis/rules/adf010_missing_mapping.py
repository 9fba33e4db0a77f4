"""ADF010 missing-mapping: `@df.kernel` without `mapping`

## What it does
Flags a `@df.kernel(...)` decorator with no `mapping=` keyword.

## Why is this bad?
`mapping` says how many processing elements instantiate the kernel; Allo stops the build with
this message when it is missing.

## Example
```python
@df.kernel(args=[A])
def k(local_A: int32[N]): ...
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A])
def k(local_A: int32[N]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            if kernel.mapping_keyword_index is None:
                yield Finding(
                    kernel.decorator_range,
                    f"Invalid @df.kernel decorator on function '{kernel.name}': missing required 'mapping' parameter.",
                    {"region": region.name, "kernel": kernel.name},
                )
