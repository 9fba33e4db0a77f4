"""ADF086 chained-comparison: a comparison of more than two operands in a kernel

## What it does
Flags a chained comparison (`a < b < c`, `0 <= i < n`) in a kernel's body. Allo a098603f types
a comparison with its first comparator only (`TypeInferer.visit_Compare` in `allo/ir/infer.py`
asserts `len(node.comparators) == 1`). The condition of `allo.meta_if` / `allo.meta_elif` and
the bounds of `allo.meta_for` are not flagged: Allo evaluates them in Python.

## Why is this bad?
`df.build` stops (`AssertionError: Only support one comparator for now`, then exit status 1):
Python's meaning, `a < b and b < c`, is not built.

## Example
```python
        if 0 < a[i] < 10:
            b[i] = a[i]
```
Use instead:
```python
        if a[i] > 0 and a[i] < 10:
            b[i] = a[i]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("comparison",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' chains a comparison, which Allo cannot build ({problem.message}). "
            "Compare two operands at a time, joined with `and`.",
            {"region": region.name, "kernel": kernel.name},
        )
