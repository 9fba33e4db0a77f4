"""ADF092 signed-division: integer `/` or `%` on a value that may be negative truncates as C does

## What it does
Flags `a / b` and `a % b` in a kernel's body where both operands are integers and one is a
signed integer that may be negative. Allo a098603f lowers them to `arith.divsi` and
`arith.remsi` (`build_general_binop` in `allo/ir/builder.py`): integer division that truncates
toward zero and a remainder with the sign of the dividend, as in C.

An operand known never to be negative is left alone, since C and Python agree on it: a literal
or a module constant of 0 or more (`N`, a shape folded at module level), a `df.get_pid()` value,
a loop variable of `allo.grid(...)`, or of `range(...)` / `allo.meta_for(...)` from 0 or more by
a positive step, and a sum, product, quotient or remainder of those (`(i * W + pi) % 2`). A
parameter, an array element, a local the body assigns and a difference (`i - 1`) may be
negative; so may a loop variable whose name another loop of the kernel binds from below 0.

## Why is this bad?
Python's `/` is true division and its `%` follows the divisor's sign: `-7 / 2` is `-3` in Allo
(not `-3.5`), `-4 % 3` is `-1` (not `2`). A design tested with Python's numbers gives other ones
on Allo.

## Example
```python
        b[i] = a[i] % 3  # a: int32[N]
```
Use instead, when `a[i]` may be negative and Python's remainder is meant:
```python
        r: int32 = a[i] % 3
        b[i] = r + 3 if r < 0 else r
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import typed_kernels

SEVERITY = Severity.WARNING


def _may_be_negative(ty, non_negative: bool) -> bool:
    return ty.kind == "int" and not non_negative


def check(ctx: Context):
    for region, kernel, typing in typed_kernels(ctx.model):
        for op in typing.operations:
            if op.op not in ("/", "%") or op.left is None or op.right is None:
                continue
            if not (op.left.is_int and op.right.is_int):
                continue
            if not (
                _may_be_negative(op.left, op.left_non_negative) or _may_be_negative(op.right, op.right_non_negative)
            ):
                continue
            what = (
                "divides as C does (`divsi`: the quotient truncated toward zero)"
                if op.op == "/"
                else ("takes C's remainder (`remsi`: the sign of the dividend)")
            )
            yield Finding(
                op.range,
                f"Kernel '{kernel.name}': integer `{op.op}` on {op.left} and {op.right} {what}, "
                "not Python's; a negative operand gives another number than Python does.",
                {"region": region.name, "kernel": kernel.name},
            )
