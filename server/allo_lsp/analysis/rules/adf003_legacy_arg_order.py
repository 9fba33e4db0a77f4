"""ADF003 legacy-arg-order: older Allo builds compile the top function in another order

## What it does
Compares the region's declaration order with the order in which kernels first bind its
parameters (kernel-appearance order), and flags the region when they differ.

## Why is this bad?
Fixed Allo builds compile `top(...)` in declaration order; older builds in kernel-appearance
order. A caller writing `mod(inp, out, n)` against one build silently corrupts data on the other:
no error, wrong results.

## Example
```python
@df.region()
def top(arr_in: int32[N], arr_out: int32[N], n: int32[1]):
    @df.kernel(mapping=[1], args=[arr_in, n])
    def load(local_in: int32[N], local_n: int32[1]): ...

    @df.kernel(mapping=[1], args=[arr_out])
    def store(local_out: int32[N]): ...
```
Use instead (both builds agree on `top(arr_in, n, arr_out)`):
```python
@df.region()
def top(arr_in: int32[N], n: int32[1], arr_out: int32[N]):
    ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding, legacy_hazard_severity

SEVERITY = Severity.WARNING
severity_for = legacy_hazard_severity


def check(ctx: Context):
    for region in ctx.model.regions:
        if not region.bindings_known:  # an unreadable args=... is ADF013; guessing would mislead
            continue
        legacy = region.legacy_order
        declared = [p.name for p in region.params if p.name in legacy]
        if legacy == declared:
            continue
        fixed = ", ".join(p.name for p in region.params)
        older = ", ".join(legacy)
        yield Finding(
            region.range,
            f"Older Allo builds compile '{region.name}' as {region.name}({older}) (kernel-appearance "
            f"order), fixed builds as {region.name}({fixed}) (declaration order): a call written for "
            f"one build corrupts data on the other. Declare the parameters as "
            f"{region.name}({older}) so both builds agree.",
            {"region": region.name, "order": legacy},
        )
