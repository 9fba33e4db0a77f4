"""ADF014 unknown-arg: a name in `args` is not a parameter of the region

## What it does
Flags a name in `args=[...]` that is not one of the region's parameters.

## Why is this bad?
Kernels receive data only through the region's parameters; a global or misspelled name is not
part of the compiled top function, so the binding cannot work.

## Example
```python
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A, C])
```
Use instead:
```python
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A, B])
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        names = [p.name for p in region.params]
        for kernel in region.kernels:
            for arg in kernel.args or ():
                if arg.name is not None and arg.name not in names:
                    known = ", ".join(names) if names else "none"
                    yield Finding(
                        arg.range,
                        f"'{arg.name}' in args=[...] of kernel '{kernel.name}' is not a parameter of "
                        f"region '{region.name}' (its parameters: {known}).",
                        {"region": region.name, "kernel": kernel.name},
                    )
