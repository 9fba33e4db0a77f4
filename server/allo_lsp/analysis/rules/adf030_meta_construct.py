"""ADF030 meta-construct: meta construct not written `allo.meta_*`, or unmatched

## What it does
Flags `with meta_if(...)` (a bare imported name), and an `allo.meta_elif`/`allo.meta_else` that
no open `allo.meta_if` of its level takes: Allo keeps a stack of open `meta_if` chains per meta
branch body (statements of plain `for`/`if` bodies and of `allo.meta_for` bodies share the
enclosing level: Allo a098603f's `build_With` unrolls a `meta_for` without opening a level, so a
branch in its body pairs with a chain opened before the loop). A `meta_else` closes the
chain on top, so ordinary statements between the blocks do not break a chain, but a `meta_elif`
after the `meta_else` of its chain pairs only with a chain still open below it. Allo unrolls the
`meta_for` (`infer.py` visits its body once per iteration), so its body's branches pair once per
iteration: a `meta_else` in a loop of two or more iterations that closes a chain opened before the
loop finds it closed in the second iteration.

## Why is this bad?
Allo recognises meta (compile-time) control only as attribute calls on `allo`
(`Unsupported meta function`) and stops at a branch with no open chain
(`Unmatched allo.meta_elif()`, `Unmatched allo.meta_else()`).

## Example
```python
with meta_if(i == 0):
    ...
with allo.meta_if(i == 0):
    ...
with allo.meta_else():
    ...
with allo.meta_elif(i == 1):   # its chain was closed by meta_else
    ...
```
Use instead:
```python
with allo.meta_if(i == 0):
    ...
with allo.meta_elif(i == 1):
    ...
with allo.meta_else():
    ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            for use in kernel.meta_uses:
                if not use.qualified:
                    yield Finding(
                        use.range,
                        f"Unsupported meta function: Allo only recognises meta constructs written "
                        f"as attributes of allo; write 'allo.{use.func}(...)'.",
                        {"region": region.name, "kernel": kernel.name, "func": use.func},
                    )
                elif not use.matched:
                    where = (
                        "in the allo.meta_for's second iteration (Allo unrolls the loop: the first "
                        "iteration's copy closed the chain)"
                        if use.unrolled
                        else "here (a meta_else closes its chain)"
                    )
                    yield Finding(
                        use.range,
                        f"Unmatched allo.{use.func}(): no 'with allo.meta_if(...)' chain of this level is open {where}.",
                        {"region": region.name, "kernel": kernel.name, "func": use.func},
                    )
