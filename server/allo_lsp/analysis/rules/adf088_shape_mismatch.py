"""ADF088 shape-mismatch: an assignment whose shapes do not broadcast, or an array indexed past its rank

## What it does
Flags, in a kernel's body, an assignment whose value has a shape Allo a098603f cannot broadcast to
its target's: an array stored into a scalar (`x: int32 = a` where `a` is `int32[4]`, `r[0] = a`,
`x = a` of a scalar `x` declared before), a stream get of blocks stored into a scalar
(`x: int32 = s.get()` of a `Stream[int32[4], 2]`), arrays of other sizes (`t: int32[2] = a`), and
a list literal of another shape than the declared one (`t: int32[2] = [1, 2, 3]`). Allo's type
inference broadcasts the value to the target as NumPy does, dimension by dimension from the right,
and the result must be the target's shape (`TypeInferer.visit_broadcast` with `match_lhs=True`,
called from `visit_Assign` and `visit_AnnAssign` in `allo/ir/infer.py`); an operator of two arrays
broadcasts the same way (`visit_general_binop`); a list literal must have the declared shape
exactly (`visit_assignment_val`). A scalar is broadcast to any array (`t: int32[4] = 0`), a
dimension of 1 to any size.

It also flags `allo.matmul(a, b)` whose inner dimensions differ (`a`'s last, `b`'s second last:
`visit_library_op` asserts it), an array indexed with more indices than it has dimensions
(`a[i, j]` of an `int32[4]`): `visit_Subscript` types it a scalar, and `build_memory_access` in
`allo/ir/builder.py` writes a load or store of that many indices, which MLIR's verifier refuses;
and a slice of an array whose bounds are constants (literals, the module's ints) outside its
dimension, of a step that is 0, larger than the slice or no literal (`a[0:8]` of an `int32[4]`,
`a[-2:]`, `a[0:4:K]`: `build_slices`' `Index out of range`, `Unsupported negative index`,
`Unsupported step type`, ...).

## Why is this bad?
`df.build` stops, whatever the target: `Cannot broadcast (4,) to ()`, `Shape mismatch, got (2,)
and (4,), and cannot be broadcasted`, or (an `MLIRError` when `_build_top` canonicalizes the
module) `'affine.load' op affine map num results must equal memref rank`. Python would copy the
array, or fail only when the kernel runs.

## Example
```python
    s: Stream[int32[4], 2]
    ...
        x: int32 = s.get()
```
Use instead: a local of the block's shape, then its elements
```python
        blk: int32[4] = s.get()
        x: int32 = blk[0]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of
from allo_lsp.protocol.build_errors import SLICE_ERRORS

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("shape",)):
        if "memref rank" in problem.message or "number of indices" in problem.message:
            what = "indexes an array with more indices than it has dimensions"
            fix = "Index each dimension once."
        elif problem.message.startswith("The last dimension of the first input"):
            what = "multiplies matrices whose inner dimensions differ (`allo.matmul`)"
            fix = "Give the first input's last dimension the second's second last."
        elif problem.message in SLICE_ERRORS:
            what = "slices an array with a constant bound outside its dimension, or a step Allo does not build"
            fix = "Keep the bounds within the dimension and the step a literal from 1 to the slice's length."
        else:
            what = "assigns a value whose shape does not broadcast to the target's"
            fix = "Index the array (`a[i]`), or give the target the value's shape."
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' {what}, and Allo's build stops here ({problem.message}). {fix}",
            {"region": region.name, "kernel": kernel.name},
        )
