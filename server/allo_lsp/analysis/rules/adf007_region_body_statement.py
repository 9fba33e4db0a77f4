"""ADF007 region-body-statement: a region's body holds something other than streams, ConstExpr declarations and kernels

## What it does
Flags a statement directly in a `@df.region()` body that is not a stream declaration
(`s: Stream[T, d]`), a `ConstExpr` declaration (`K: ConstExpr[int32] = 4`) or a `@df.kernel`
definition: an assignment, a call, a loop, a helper function without `@df.kernel`, ...
Docstrings, `pass` and `...` are not flagged, nor the removed `df.pipe(...)` (ADF040).

## Why is this bad?
Allo never runs a region's body as Python: it reads the streams, the `ConstExpr` declarations
and the kernels from the source and leaves the rest out of the design. A `print`, a constant
computed there or a helper defined there is not what the built design does, and kernels that
rely on it fail to build or compute something else.

## Example
```python
@df.region()
def top(A: int32[N], B: int32[N]):
    scale = 3

    @df.kernel(mapping=[1], args=[A, B])
    def k(local_A: int32[N], local_B: int32[N]): ...
```
Use instead:
```python
@df.region()
def top(A: int32[N], B: int32[N]):
    scale: ConstExpr[int32] = 3

    @df.kernel(mapping=[1], args=[A, B])
    def k(local_A: int32[N], local_B: int32[N]): ...
```
(or define `scale` at module level).
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        for stmt in region.other_statements:
            yield Finding(
                stmt.range,
                f"This {stmt.kind} in region '{region.name}' is not part of the design: Allo reads a "
                "region's body only for its stream declarations, ConstExpr declarations and kernels, "
                "and never runs it as Python. Move it to module level or into a kernel.",
                {"region": region.name, "kind": stmt.kind},
            )
