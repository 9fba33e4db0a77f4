"""ADF080 name-outside-block: a kernel reads a name after the block that bound it has ended

## What it does
Flags a name read in a kernel's body after the `if`, `for`, `while` or `with allo.meta_*` body
that bound it: Allo a098603f scopes names by block (`ASTContext.block_scope_guard` in
`allo/ir/infer.py`), and a name bound inside a block is unknown after it.

## Why is this bad?
Python keeps the name alive, Allo does not: `df.build` stops with `Unsupported Name` (from
`TypeInferer.visit_Name`), whatever the target.

## Example
```python
@df.kernel(mapping=[1], args=[A, B])
def k(a: int32[N], b: int32[N]):
    for i in range(N):
        last = a[i]
    b[0] = last
```
Use instead:
```python
    last: int32 = 0
    for i in range(N):
        last = a[i]
    b[0] = last
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("name",)):
        name = problem.message.partition("`")[2].rstrip("`")
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' reads '{name}' after the block that bound it: Allo scopes names by "
            f"block and stops the build ({problem.message}). Bind '{name}' before the block.",
            {"region": region.name, "kernel": kernel.name},
        )
