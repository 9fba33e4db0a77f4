"""ADF096 undefined-name: a kernel reads or calls a name nothing binds

## What it does
Flags, in a kernel's body, a name read or called that is bound nowhere: not a parameter, a local,
a loop variable, a stream or parameter of the region, nor a name of the module or of an enclosing
function (a typo: `acc` for `accum`, a helper never defined). Allo a098603f looks a name up among
the kernel's symbols, then the module's globals and the enclosing scopes (`get_global_vars` in
`allo/ir/utils.py`), and stops where it finds nothing (`TypeInferer.visit_Name`, `visit_Call` in
`allo/ir/infer.py`). Python's builtins are ADF081's. A file with a star import
(`from m import *`) is not judged, nor a name the file binds anywhere outside the kernel (Allo also
reads the ints, floats, types and functions of the frames that call `df.build`).

## Why is this bad?
`df.build` stops with ``Unsupported Name `acc` ``, `Unsupported function call foo`, or (for
`foo.bar(x)`) ``Unsupported function call or attribute method `.bar` ``.

## Example
```python
        accum: int32 = 0
        for i in range(N):
            accum += a[i]
        b[0] = acc
```
Use instead:
```python
        b[0] = accum
```
The quick fix corrects a typo to the name in scope closest to it (the kernel's, the region's or
the module's, of `difflib` ratio 0.8 or more) when exactly one such name makes the design build:
the text is analysed again with each, and one that leaves another problem (an array where a
scalar is read, a local of a block that has ended) is none. It is unsafe: it guesses what the
user meant. A name close to none, or to several, has no fix; nor has `acc += v` of no declaration.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("undefined",)):
        augmented = problem.message.startswith("Variable ")  # `acc += v` before any `acc: T = ...`
        name = problem.message.split(" ")[1]
        fix = (
            f"Declare it before (`{name}: int32 = 0`)."
            if augmented
            else "Define it at module level, or correct the name."
        )
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' names something nothing binds, and Allo's build stops here ({problem.message}). {fix}",
            {"region": region.name, "kernel": kernel.name},
        )
