"""ADF085 stream-array-index: a stream array indexed by a value known only at run time

## What it does
Flags `fifo[i].put(x)` / `fifo[i].get()` in a kernel's body where the index reads a variable of
the body: a `for` loop's variable, a local or a parameter. Allo a098603f picks the element of a
stream array when it builds the kernel: its type inference reads the index as a symbolic
expression of the PE's `get_pid()` values, the variables of `allo.meta_for` and constants
(`TypeInferer.visit_Call` through `get_symbolic_expr` in `allo/ir/visitor.py`), so only those
may index a stream array.

## Why is this bad?
`df.build` stops with `ValueError: Fail to resolve the expression as symbolic expression.`:
there is one FIFO per element, and which one a put goes to cannot depend on a value computed at
run time.

## Example
```python
    @df.kernel(mapping=[1], args=[A])
    def producer(a: int32[P]):
        for i in range(P):
            fifo[i].put(a[i])
```
Use instead:
```python
        with allo.meta_for(P) as i:
            fifo[i].put(a[i])
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("stream-index",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' indexes a stream array with a variable of its body: Allo picks the stream "
            f"when it builds and stops ({problem.message}). Use allo.meta_for, get_pid() or a constant.",
            {"region": region.name, "kernel": kernel.name},
        )
