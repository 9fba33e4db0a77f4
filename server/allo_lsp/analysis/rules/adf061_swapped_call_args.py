"""ADF061 swapped-call-args: call-site names match region parameters in another order

## What it does
Flags an argument of `mod(...)` that is a variable named like a region parameter other than the
one at its position (in the order of the configured Allo build). A variable passed several times
is taken as deliberate.

## Why is this bad?
Arrays are passed by position and written in place: swapped arguments run without error and
produce wrong results.

## Example
```python
mod = df.build(top, target="simulator")   # top(A, B, C)
mod(B, A, C)
```
Use instead:
```python
mod(A, B, C)
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for call in ctx.model.calls:
        if call.region.parameterless_api:
            continue  # its old signature came from the kernels' own parameters; ADF040 reports it
        params = [p.name for p in call.region.signature_for(ctx.options.allo_build)]
        passed = [a.name for a in call.args]
        for i, arg in enumerate(call.args):
            if arg.keyword or arg.starred or arg.name is None or i >= len(params):
                continue
            if passed.count(arg.name) > 1:  # `mod(A, A, A)` reuses a buffer on purpose: not a swap
                continue
            if arg.name in params and params[i] != arg.name:
                yield Finding(
                    arg.range,
                    f"'{arg.name}' is passed as argument {i + 1}, which region "
                    f"'{call.region.name}' names '{params[i]}' ('{arg.name}' is argument "
                    f"{params.index(arg.name) + 1}): likely swapped. The order is "
                    f"{call.region.name}({', '.join(params)}).",
                    {"region": call.region.name, "position": i, "expected": params[i]},
                )
