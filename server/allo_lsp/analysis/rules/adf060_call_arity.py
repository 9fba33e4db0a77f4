"""ADF060 call-arity: call of a built module with the wrong number of arguments

## What it does
Checks `mod(...)` where `mod = df.build(region, ...)` against the number of arguments the
compiled top function takes (in the order of the configured Allo build). `mod()` with no
arguments on a synthesis build (`mode="csyn"`, ...) runs Vitis HLS and is not flagged.

## Why is this bad?
The compiled function takes exactly one array per region parameter.

## Example
```python
mod = df.build(top, target="simulator")   # top(A, B, n)
mod(A, B)
```
Use instead:
```python
mod(A, B, np.array([n], dtype=np.int32))
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR
_RUNS_TOOL_MODES = ("csyn", "cosim", "impl", "hw", "hw_emu", "sw_emu")


def check(ctx: Context):
    for call in ctx.model.calls:
        if call.region.parameterless_api:
            continue  # its old signature came from the kernels' own parameters; ADF040 reports it
        if any(a.starred or a.keyword for a in call.args):
            continue
        if not call.args and call.build_target != "simulator" and call.build_mode in _RUNS_TOOL_MODES:
            continue
        expected = call.region.signature_for(ctx.options.allo_build)
        if len(call.args) == len(expected):
            continue
        names = ", ".join(p.name for p in expected)
        yield Finding(
            call.call_range,
            f"'{call.module}' is built from region '{call.region.name}', which takes "
            f"{len(expected)} argument{'s' * (len(expected) != 1)} ({names}); this call passes "
            f"{len(call.args)}.",
            {"region": call.region.name},
        )
