"""ADF095 rebound-name: a kernel's loop variable or declaration reuses a name in scope

## What it does
Flags, in a kernel's body, a `for` loop variable named like a symbol in scope (a parameter of the
kernel or of its region, a stream of the region, a local of an enclosing block, the variable of an
enclosing loop), and an annotated declaration `x: T = v` of a name already bound with another
type or shape, or without a value. Allo a098603f asserts a loop variable is new (`TypeInferer.visit_all_for` in
`allo/ir/infer.py`) and reads a second annotation of a name as an assignment that must keep its
type (`visit_AnnAssign`). A `get_pid()` value and a `meta_for` variable are Python's numbers, not
symbols, and may be reused; so may a name whose block has ended (`for i` after another `for i`).

## Why is this bad?
`df.build` stops: `Please choose a different name for the loop iterator.`, `Invalid assignment
to x, type mismatch.`, `Unsupported annotated assignment without a value.`

## Example
```python
        for i in range(N):
            for i in range(M):
                c[i] = a[i]
```
Use instead:
```python
        for i in range(N):
            for j in range(M):
                c[j] = a[j]
```
The quick fix renames a loop variable and its uses in the loop's body to a name free in the
file (`i` -> `i_1`): Python reads those uses as the loop's variable too, and after the loop
Allo's scope has the other symbol again, so the loop computes what it was written to. It is
safe. It is not offered when the body binds the name again, nor for a declaration (which type
to keep is the user's choice).
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("rebound",)):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' reuses a name Allo has bound already, and its build stops here "
            f"({problem.message}). Choose another name.",
            {"region": region.name, "kernel": kernel.name},
        )
