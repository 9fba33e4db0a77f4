"""ADF015 type-mismatch: kernel parameter dtype/shape differs from the bound region parameter

## What it does
Compares each kernel parameter's element type and global shape with the region parameter bound
to it through `args=[...]`. Layouts (`@ [S(0), R]`) do not change the global shape. Types that do
not fold to constants here are not compared.

## Why is this bad?
Allo stops the build with this message: a kernel sees the region's array as it is.

## Example
```python
def top(A: int32[16, 16]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: float32[16, 16]): ...
```
Use instead:
```python
def top(A: int32[16, 16]):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[16, 16]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            for kp in kernel.params:
                rp = region.param(kp.bound_to) if kp.bound_to else None
                if rp is None or kp.type is None or rp.type is None:
                    continue
                if not (kp.type.fully_resolved and rp.type.fully_resolved):
                    continue
                if (kp.type.dtype, kp.type.shape) == (rp.type.dtype, rp.type.shape):
                    continue
                yield Finding(
                    kp.annotation_range or kp.range,
                    f"df.kernel argument {kp.name} do not match {rp.name}. (kernel '{kernel.name}' "
                    f"declares {kp.type.printed}, region '{region.name}' passes {rp.type.printed}; "
                    f"declare it {rp.annotation}.)",
                    {"region": region.name, "kernel": kernel.name, "param": kp.name, "annotation": rp.annotation},
                )
