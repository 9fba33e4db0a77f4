"""ADF013 args-not-names: `args` is not a list literal of bare names

## What it does
Flags `args=` given anything but a list literal, and entries of the list that are not bare names
(`A[0]`, `A.T`, `f(A)`, `*rest`).

## Why is this bad?
Allo reads `args` from source and binds each entry by name to a region parameter; anything else
cannot be bound.

## Example
```python
@df.kernel(mapping=[1], args=(A, B[0]))
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A, B])
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            if kernel.args_range is not None and not kernel.args_is_list:
                yield Finding(
                    kernel.args_range,
                    f"'args' of @df.kernel '{kernel.name}' must be a list literal of region "
                    "parameter names, e.g. args=[A, B].",
                    {"region": region.name, "kernel": kernel.name},
                )
            for arg in kernel.args or ():
                if arg.name is None:
                    yield Finding(
                        arg.range,
                        f"'args' of @df.kernel '{kernel.name}' takes bare region parameter names; "
                        "this entry is an expression. Pass the whole parameter and index it in the "
                        "kernel.",
                        {"region": region.name, "kernel": kernel.name},
                    )
