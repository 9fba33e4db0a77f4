"""ADF001 bare-scalar-param: bare scalar region parameter

## What it does
Flags a region parameter annotated with a bare scalar type (`n: int32`) that no kernel binds in
`args=[...]` (a scalar bound there is ADF002's, reported once at the `args`).

## Why is this bad?
Allo compiles it to a 0-d `memref<i32>` argument of the top function (`memref<i1>` for `bool`),
with no scalar (s_axilite) port path in the Vitis backend, and kernels cannot bind it (ADF002).
A one-element array is the supported spelling.

## Example
```python
@df.region()
def top(A: int32[16], n: int32):
    ...
```
Use instead:
```python
@df.region()
def top(A: int32[16], n: int32[1]):
    ...

mod(A, np.array([n], dtype=np.int32))
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        bound = {a.name for k in region.kernels for a in k.args or () if a.name}
        for p in region.params:
            if p.type is None or not p.type.is_scalar or p.type.dtype is None or p.name in bound:
                continue
            yield Finding(
                p.annotation_range or p.range,
                f"Region parameter '{p.name}' is a bare scalar ({p.annotation}): Allo's top-level "
                f"arguments are arrays. Declare it '{p.name}: {p.annotation}[1]' (an m_axi pointer) "
                f"and pass np.array([{p.name}], dtype=np.{p.type.dtype.numpy_attr}).",
                {"region": region.name, "param": p.name},
            )
