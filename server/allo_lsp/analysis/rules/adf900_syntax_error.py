"""ADF900 syntax-error: Python syntax error

## What it does
Reports Python syntax errors, with CPython's message where it agrees on the place. The line is
set aside and the rest of the file is still analysed, so other diagnostics stay visible while
you type.

## Why is this bad?
Allo reads the region from source: nothing in the file builds until the error is fixed.

## Example
```python
@df.kernel(mapping=[1], args=[A]
def k(local_A: int32[N]): ...
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A])
def k(local_A: int32[N]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for error in ctx.model.syntax_errors:
        yield Finding(error.range, error.message)
