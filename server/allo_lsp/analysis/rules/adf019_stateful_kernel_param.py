"""ADF019 stateful-kernel-param: a kernel parameter annotated `@ Stateful`

## What it does
Flags a `@df.kernel` parameter whose annotation is `T @ Stateful` (or the older `T @ stateful`).

## Why is this bad?
State is kept by a kernel's own variables: Allo rejects a stateful parameter with
`Function parameter 'x' cannot be Stateful. Stateful variables can only be declared locally
within a kernel.`

## Example
```python
@df.kernel(mapping=[1], args=[A])
def acc(local_A: int32[N] @ Stateful): ...
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A])
def acc(local_A: int32[N]):
    total: int32 @ Stateful = 0
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            for p in kernel.params:
                if p.stateful:
                    yield Finding(
                        p.range,
                        f"Function parameter '{p.name}' cannot be Stateful. Stateful variables can only "
                        "be declared locally within a kernel.",
                        {"region": region.name, "kernel": kernel.name, "param": p.name},
                    )
