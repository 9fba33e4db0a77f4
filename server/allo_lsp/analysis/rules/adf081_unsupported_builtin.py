"""ADF081 unsupported-builtin: a kernel calls a Python builtin Allo cannot build

## What it does
Flags a call in a kernel's body of a Python builtin other than the few Allo a098603f builds
(`float`, `int`, `min`, `max`, `range`): `abs`, `round`, `len`, `sum`, `pow`, `print`, ...
(`TypeInferer.visit_Call` in `allo/ir/infer.py` has no case for them).

## Why is this bad?
A kernel is compiled, not run: `df.build` stops with `Unsupported function call`.

## Example
```python
        b[i] = abs(a[i])
```
Use instead:
```python
        b[i] = allo.abs(a[i])
```
"""

from allo_lsp.analysis.model import Position, Range
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR
# Builtins Allo has a function of its own for (`allo/dsl.py`).
_ALLO_HAS = {"abs": "allo.abs", "pow": "allo.power"}


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("call",)):
        name = problem.message.rpartition(" ")[2]
        instead = f" Use {_ALLO_HAS[name]}." if name in _ALLO_HAS else ""
        start = problem.range.start  # the call: its callee, the builtin's name, opens it
        callee = Range(start, Position(start.line, start.column + len(name)))
        yield Finding(
            callee,
            f"Kernel '{kernel.name}' calls the builtin '{name}', which Allo cannot build ({problem.message}).{instead}",
            {"region": region.name, "kernel": kernel.name, **({"replacement": _ALLO_HAS[name]} if instead else {})},
        )
