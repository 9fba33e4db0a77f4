"""ADF070 host-math-call: a kernel calls `math` or numpy where Allo has its own function

## What it does
Flags a call in a kernel's body of `math.exp`, `np.exp`, `numpy.exp` (or `exp` imported from
`math` or numpy) and of the other functions Allo provides under its own name: `log`, `log2`,
`log10`, `sqrt`, `sin`, `cos`, `tan`, `tanh`, `abs` (`np.absolute`, `math.fabs`) and `power`
(`np.power`, `math.pow`).

## Why is this bad?
A kernel's body is compiled, not run: Allo knows its own functions (`allo.exp`, ...) and stops
on the host library's with `KeyError: 'exp'`.

## Example
```python
@df.kernel(mapping=[1], args=[A, B])
def k(local_A: float32[N], local_B: float32[N]):
    for i in range(N):
        local_B[i] = np.exp(local_A[i])
```
Use instead:
```python
        local_B[i] = allo.exp(local_A[i])
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR

_SAME_NAME = ("exp", "log", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh")
# `math.<name>` / `numpy.<name>` -> Allo's function (`allo/dsl.py`, exported by `allo`).
ALLO_FUNCTIONS = {
    **{f"{lib}.{f}": f for lib in ("math", "numpy") for f in _SAME_NAME},
    "numpy.abs": "abs",
    "numpy.absolute": "abs",
    "math.fabs": "abs",
    "numpy.power": "power",
    "math.pow": "power",
}


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            for call in kernel.library_calls:
                allo_name = ALLO_FUNCTIONS.get(call.function)
                if allo_name is None:
                    continue
                short = call.function.rpartition(".")[2]
                yield Finding(
                    call.range,
                    f"Kernel '{kernel.name}' calls {call.function}: a kernel is compiled, and Allo knows "
                    f"only its own functions (KeyError: '{short}'). Use allo.{allo_name}.",
                    {"region": region.name, "kernel": kernel.name, "replacement": f"allo.{allo_name}"},
                )
