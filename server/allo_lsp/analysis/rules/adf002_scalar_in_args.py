"""ADF002 scalar-in-args: a scalar bound in `args=[...]`

## What it does
Flags a name in a kernel's `args=[...]` that refers to a bare scalar region parameter (Allo's
type inference rejects it, `allo/ir/infer.py`), and says what works: a 1-element array of the
type as the file spells it. The region parameter
itself is not reported again (ADF001 is for a scalar no kernel binds).

## Why is this bad?
Allo's type inference rejects it and the build exits with this message. The "captured
automatically" alternative it mentions is not backed by any working test: use a 1-element array.

## Example
```python
def top(A: int32[16], n: int32):
    @df.kernel(mapping=[1], args=[A, n])
    def k(local_A: int32[16], local_n: int32): ...
```
Use instead:
```python
def top(A: int32[16], n: int32[1]):
    @df.kernel(mapping=[1], args=[A, n])
    def k(local_A: int32[16], local_n: int32[1]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            for arg in kernel.args or ():
                p = region.param(arg.name) if arg.name else None
                if p is None or p.type is None or not p.type.is_scalar or p.type.dtype is None:
                    continue
                yield Finding(
                    arg.range,
                    f"Scalar '{p.name}' cannot appear in `args=[...]` on @df.kernel '{kernel.name}': "
                    f"Allo rejects it at build time. Use a 1-element array, `{p.name}: {_spelling(p)}[1]`, "
                    f"passed as `np.array([{p.name}], ...)`. (Allo's message also suggests removing it from "
                    "args for automatic capture; no working Allo test backs that.)",
                    {"region": region.name, "param": p.name},
                )


def _spelling(param) -> str:
    """The element type as the file writes it (`float32`, `Ty`), Allo's printed name when the
    annotation is no plain name (`"int32"` as a string)."""
    written = param.annotation.strip()
    return written if written.replace(".", "").replace("_", "").isalnum() else param.type.dtype.printed
