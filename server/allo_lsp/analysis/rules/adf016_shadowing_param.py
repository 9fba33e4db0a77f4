"""ADF016 shadowing-param: kernel parameter name shadows a visible symbol

## What it does
Flags a kernel parameter named like a region parameter, a stream or another name declared in the
region, a function, or a constant or type visible from the region (module globals, the enclosing
function, closures). Of an enclosing function's locals only what Allo collects from the calling
frames counts (ints, floats, lists, Allo types, functions): a test's `A = np.zeros(...)` does not.

## Why is this bad?
Allo resolves names from one symbol table and stops with this message. Two different kernels may
both name a parameter `x`; a kernel may not reuse a visible name.

## Example
```python
def top(A: int32[N]):
    @df.kernel(mapping=[1], args=[A])
    def k(A: int32[N]): ...
```
Use instead:
```python
def top(A: int32[N]):
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
            for kp in kernel.params:
                if kp.shadows is None:
                    continue
                yield Finding(
                    kp.range,
                    f"Argument name '{kp.name}' conflicts with an existing symbol. Please choose a "
                    f"different name to avoid the conflict. (It shadows {kp.shadows}; e.g. "
                    f"'local_{kp.name}'.)",
                    {"region": region.name, "kernel": kernel.name, "param": kp.name, "new_name": f"local_{kp.name}"},
                )
