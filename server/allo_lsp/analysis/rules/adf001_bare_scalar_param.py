"""ADF001 bare-scalar-param: bare scalar region parameter

## What it does
Flags a region parameter annotated with a bare scalar type (`n: int32`).

## Why is this bad?
Every argument of the compiled top function is a memref with an AXI-MM (m_axi) port; Allo's
`main` rejects scalars in `args=[...]` and there is no scalar (s_axilite) port path in the Vitis
backend. A one-element array is the supported spelling.

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
        for p in region.params:
            if p.type is None or not p.type.is_scalar or p.type.dtype is None:
                continue
            yield Finding(
                p.annotation_range or p.range,
                f"Region parameter '{p.name}' is a bare scalar ({p.annotation}): Allo's top-level "
                f"arguments are arrays. Declare it '{p.name}: {p.annotation}[1]' (an m_axi pointer) "
                f"and pass np.array([{p.name}], dtype=np.{p.type.dtype.numpy}).",
                {"region": region.name, "param": p.name},
            )

