"""ADF084 simulator-unsupported: math functions or fixed point in a region built only for the simulator

## What it does
Flags, in a region whose every `df.build` has `target="simulator"`, each call of Allo's math
functions (`allo.exp`, `allo.log`, `allo.sqrt`, `allo.sin`, `allo.tanh`, `allo.power`, `allo.abs`,
...) and each `**` (`math.powf`: Allo's power is a float) in a kernel, and each `Fixed`/`UFixed`
parameter or stream of the region. Allo a098603f's
simulator lowers with a pass pipeline of its own (`LLVMOMPModule.__init__` in
`allo/backend/simulator.py`: affine, scf, memref, func, index, arith, cf and OpenMP to LLVM) with
no lowering of the `math` dialect and none of Allo's fixed-point types.

## Why is this bad?
The same design builds for `vitis_hls`, but `df.build(..., target="simulator")` fails while
lowering: the math operations and fixed-point types are left for LLVM, which knows neither.

## Example
```python
@df.kernel(mapping=[1], args=[A, B])
def k(a: float32[N], b: float32[N]):
    for i in range(N):
        b[i] = allo.exp(a[i])

mod = df.build(top, target="simulator")
```
Use instead: simulate with the reference executor (`alloDataflow.backend: reference`), or build
for `vitis_hls` and run its C simulation (`mode="sw_emu"`).
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import typed_kernels

SEVERITY = Severity.ERROR
# Allo's functions that lower to the `math` dialect (`allo/dsl.py`, `build_Call` in builder.py).
MATH = frozenset("exp log log2 log10 sqrt sin cos tan tanh power abs".split())


def _simulator_only(ctx: Context, region) -> bool:
    builds = ctx.model.builds_of(region)
    return bool(builds) and all(b.target == "simulator" for b in builds)


def _fixed(t) -> bool:
    return t is not None and t.dtype is not None and t.dtype.kind in ("fixed", "ufixed")


def check(ctx: Context):
    for region in ctx.model.regions:
        if not _simulator_only(ctx, region):
            continue
        typed = [p for p in region.params if _fixed(p.type)]
        typed += [s for s in region.streams if s.type is not None and _fixed(s.type.element)]
        typed += [p for k in region.kernels for p in k.params if _fixed(p.type)]
        for item in typed:
            where = item.annotation_range or item.range
            yield Finding(
                where,
                f"'{item.name}' is fixed point and region '{region.name}' is built only for the simulator, "
                "whose pass pipeline has no fixed-point lowering: the build fails there.",
                {"region": region.name},
            )
    for region, kernel, typing in typed_kernels(ctx.model):
        if not _simulator_only(ctx, region):
            continue
        for name, where in typing.calls:
            if name in MATH:
                yield Finding(
                    where,
                    f"Kernel '{kernel.name}' calls allo.{name} and region '{region.name}' is built only for the "
                    "simulator, whose pass pipeline has no math lowering: the build fails there.",
                    {"region": region.name, "kernel": kernel.name},
                )
        for operation in typing.operations:
            # `x ** y` builds only on floats (`pow_rule` is a float; `build_general_binop` has only
            # `math.powf`): a math operation too.
            if operation.op == "**" and operation.left is not None and operation.right is not None:
                yield Finding(
                    operation.range,
                    f"Kernel '{kernel.name}' computes `**` (math.powf) and region '{region.name}' is built only for "
                    "the simulator, whose pass pipeline has no math lowering: the build fails there.",
                    {"region": region.name, "kernel": kernel.name},
                )
