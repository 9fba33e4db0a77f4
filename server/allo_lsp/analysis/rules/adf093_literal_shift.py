"""ADF093 literal-shift: an int literal shifted past 31 bits is computed in int32

## What it does
Flags `c << n` in a kernel's body where `c` is an int literal and the result needs more than 31
bits (`1 << 35`). Allo a098603f types an int literal as `int32` and a shift as its left operand
(`visit_Constant` in `allo/ir/infer.py`, `shift_rule` in `allo/ir/typing_rule.py`).

## Why is this bad?
The shift is done in 32 bits: the high bits are lost (`1 << 35` is 0 or undefined, `1 << 31`
negative), whatever type the result is stored into.

## Example
```python
        mask: UInt(64) = 1 << 40
```
Use instead:
```python
        one: UInt(64) = 1
        mask: UInt(64) = one << 40
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import typed_kernels

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region, kernel, typing in typed_kernels(ctx.model):
        for op in typing.operations:
            if op.op != "<<" or op.left_literal is None or op.right_literal is None:
                continue
            if op.left_literal > 0 and op.right_literal >= 0 and op.left_literal.bit_length() + op.right_literal > 31:
                yield Finding(
                    op.range,
                    f"Kernel '{kernel.name}': `{op.left_literal} << {op.right_literal}` is computed in int32 "
                    "(an int literal is int32 and a shift has its left operand's type): the high bits are lost. "
                    "Shift a local of a wider type.",
                    {"region": region.name, "kernel": kernel.name},
                )
