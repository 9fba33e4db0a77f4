"""ADF091 invert-is-identity: `~x` in a kernel is `x` in Allo

## What it does
Flags the bitwise inversion `~x` in a kernel's body. Allo a098603f types it (`visit_UnaryOp` in
`allo/ir/infer.py`) but its builder has no case for it: `build_UnaryOp` in `allo/ir/builder.py`
handles `-x` and `not x` and returns the operand itself for anything else.

## Why is this bad?
The design builds and computes `x` where Python computes `-x - 1`: no error, a wrong answer.

## Example
```python
        b[i] = ~a[i]
```
Use instead:
```python
        b[i] = a[i] ^ -1  # every bit flipped, as `xori`
```
`a[i] ^ -1` is typed `Int(max(bits, 32))` (`and_or_rule`): its low bits are those of `~a[i]`,
and the rest are ones. Stored into a type no wider than `a[i]`'s, or extended from a signed
`a[i]`, it is NumPy's `~`; an unsigned `a[i]` stored wider is not (`~` of a `uint8` 7 is 248,
`7 ^ -1` into a `uint16` is 65528): there `a[i] ^ 255` (its width's mask) is.

The quick fix writes `~x` as `x ^ -1` where it is the whole value of an assignment into an
array element or a declared local and the stored value is then NumPy's `~x` in `x`'s type (the
cases above). It is safe. Elsewhere (inside an expression, an untyped local, an unsigned value
stored wider) it is not offered.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import typed_kernels

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region, kernel, typing in typed_kernels(ctx.model):
        for op in typing.operations:
            if op.op == "~":
                yield Finding(
                    op.range,
                    f"Kernel '{kernel.name}': Allo compiles `~x` to `x` (its builder has no bitwise inversion). "
                    "Write `x ^ -1` (for an unsigned value stored wider, `x ^ m` with `m` its width's mask).",
                    {"region": region.name, "kernel": kernel.name},
                )
