"""ADF082 operand-types: an operator on types Allo has no rule or operation for

## What it does
Flags an operator of a kernel's body whose operand types Allo a098603f refuses: `//` whose result
is unsigned (`u // v` on two unsigned values: `build_general_binop` in `allo/ir/builder.py` has
only `floordivsi`; `u // 2` is `Int` by `div_rule` and builds), `//` on floats, shifts and
bitwise operators on floats (`shift_rule`, `and_or_rule` of `allo/ir/typing_rule.py` have no
float entry), `%` on fixed point, `**` on integers, a bit get or slice of a value that is not
an integer (`TypeInferer.visit_Subscript`), `.reverse()` of a value that is not an `Int`/`UInt`
(`visit_Attribute`), and `.bitcast()` of an `Int`/`UInt` whose width is not 16, 32 or 64 bits
(`visit_Call`: there is no float of that width), and `min`/`max` of two loop variables (an
`index` result: `build_Call` has no min/max of it).

It also flags a comparison used where Allo builds it wrong. A comparison is an `i1`
(`arith.cmpi`) that `visit_Compare` types by its operands' common type (`Int(32)` for two int32),
and `build_cast_op` casts it from that type: stored into an int32 (`r[i] = a[i] < b[i]`, `c = a <
b`) no cast is emitted and the `i1` meets a store of `i32`; into a `bool` the cast is a `trunci`
to `i1`. And a condition (`if x`, `while x`, `y if x else z`, `not x`, `x and y`) is built as it
is: an `int32` there is no `i1`.

## Why is this bad?
`df.build` stops: Allo's type inference raises `Typing rule is not defined with input types`, or
its builder has no operation of that type (`Can only reverse integers`, `Unsupported bitwidth 8`,
`The operand of 'not' should be a boolean value`), or MLIR's verifier refuses the module (`'affine.
store' op value to store must have the same type as memref element type`, `'scf.if' op operand #0
must be 1-bit signless integer`). Where a comparison does build as a value, it is sign-extended
from one bit: `(a < b) + x` of int32 is `x - 1` when true.

## Example
```python
def k(a: uint8[N], b: uint8[N], c: uint8[N]):
    for i in range(N):
        c[i] = a[i] // b[i]
```
Use instead:
```python
        c[i] = a[i] / b[i]  # `divui`: unsigned integer division
```
and for a comparison's value, a select: `c[i] = 1 if a[i] < b[i] else 0`; for a condition, a
comparison: `if x != 0:`.

The quick fix writes `u // v` of unsigned values as `u / v` (and `u //= v` as `u /= v`): for
values never negative the floor of the quotient is its truncation, so it is the same number, in
the same type (`div_rule` types both operators). It is safe. The other forms have no fix.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("operator", "bits", "comparison-value", "condition")):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}': Allo's build stops here: {problem.message}.",
            {"region": region.name, "kernel": kernel.name},
        )
