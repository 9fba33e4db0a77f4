"""ADF082 operand-types: an operator on types Allo has no rule or operation for

## What it does
Flags an operator of a kernel's body whose operand types Allo a098603f refuses: `//` whose result
is unsigned (`u // v` on two unsigned values: `build_general_binop` in `allo/ir/builder.py` has
only `floordivsi`; `u // 2` is `Int` by `div_rule` and builds), `//` on floats, shifts and
bitwise operators on floats (`shift_rule`, `and_or_rule` of `allo/ir/typing_rule.py` have no
float entry), `%` on fixed point, `**` on integers, a bit get or slice of a value that is not
an integer (`TypeInferer.visit_Subscript`), `.reverse()` of a value that is not an `Int`/`UInt`
(`visit_Attribute`), and `.bitcast()` of an `Int`/`UInt` whose width is not 16, 32 or 64 bits
(`visit_Call`: there is no float of that width).

## Why is this bad?
`df.build` stops: Allo's type inference raises `Typing rule is not defined with input types`, or
its builder has no operation of that type (`Can only reverse integers`, `Unsupported bitwidth 8`).

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
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("operator", "bits")):
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}': Allo's build stops here: {problem.message}.",
            {"region": region.name, "kernel": kernel.name},
        )
