"""ADF061 swapped-call-args: call-site names match region parameters in another order

## What it does
Flags arguments of `mod(...)` that are variables named like region parameters and swapped with
each other (in the order of the configured Allo build): `B` where `A` is expected while `A` is
passed where `B` is expected, or any longer cycle. A variable passed several times is taken as
deliberate, and so is one named like another parameter whose own position holds something else
(`mod(A, B, C, A, B, D)` for `top(A, B, C, D, E, F)` reuses `A` and `B`).

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
        target = _targets(call.args, params)
        for i, arg in enumerate(call.args):
            if not _in_cycle(i, target):
                continue
            yield Finding(
                arg.range,
                f"'{arg.name}' is passed as argument {i + 1}, which region "
                f"'{call.region.name}' names '{params[i]}' ('{arg.name}' is argument "
                f"{params.index(arg.name) + 1}): likely swapped. The order is "
                f"{call.region.name}({', '.join(params)}).",
                {"region": call.region.name, "position": i, "expected": params[i]},
            )


def _targets(args, params: list[str]) -> list[int | None]:
    """For each argument, the position of the region parameter it is named after, if it is a
    plain positional name passed once and that position is another one."""
    passed = [a.name for a in args]
    out: list[int | None] = []
    for i, arg in enumerate(args):
        ok = not (arg.keyword or arg.starred) and arg.name in params and passed.count(arg.name) == 1
        j = params.index(arg.name) if ok else None
        out.append(j if j is not None and j != i and j < len(args) else None)
    return out


def _in_cycle(i: int, target: list[int | None]) -> bool:
    """Whether following "argument i belongs at target[i]" from i comes back to i: the names
    on the way are a permutation of their own positions."""
    j, steps = target[i], 0
    while j is not None and j != i and steps < len(target):
        j, steps = target[j], steps + 1
    return j == i
