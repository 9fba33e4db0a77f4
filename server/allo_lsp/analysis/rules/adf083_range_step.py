"""ADF083 range-step: a kernel's loop has a step of zero or less

## What it does
Flags `for i in range(start, stop, step)` in a kernel's body whose step folds to 0 or a
negative number. Allo a098603f builds a loop with constant bounds as an affine loop, whose step
must be positive, and any other as an `scf.for` after checking it (`build_single_for` in
`allo/ir/builder.py`: "Step in for loop range should be positive").

## Why is this bad?
`df.build` stops: Allo has no counting-down loop.

## Example
```python
    for i in range(N - 1, -1, -1):
        b[i] = a[i]
```
Use instead:
```python
    for j in range(N):
        i = N - 1 - j
        b[i] = a[i]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("range",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' loops with a step of zero or less, which Allo cannot build "
            f"({problem.message}): loop upwards and compute the index.",
            {"region": region.name, "kernel": kernel.name},
        )
