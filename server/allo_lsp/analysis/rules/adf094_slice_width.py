"""ADF094 slice-width: a bit slice whose width Allo cannot infer is `UInt(32)`

## What it does
Flags a bit slice `x[lo:hi]` in a kernel's body whose width `hi - lo` is not a number whatever
its names are (`x[0:N]` with a module-level `N`): Allo a098603f reads the bounds as symbols
(`TypeInferer.visit_Subscript`, `visit_symbol` in `allo/ir/infer.py`), warns "Cannot infer the
bitwidth of the slice, use UInt(32) as default" and types the slice `UInt(32)`.

## Why is this bad?
The slice is 32 bits wide whatever `N` is: a wider slice loses its high bits, a narrower one
widens every expression it is in.

## Example
```python
        b[i] = a[i][0:W]  # W = 8 at module level
```
Use instead:
```python
        b[i] = a[i][0:8]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("slice",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}': Allo cannot infer this slice's width from its bounds and types it "
            f"UInt(32) ({problem.message}). Write the bounds as numbers.",
            {"region": region.name, "kernel": kernel.name},
        )
