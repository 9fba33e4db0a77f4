"""ADF030 meta-construct: meta construct not written `allo.meta_*`, or unmatched

## What it does
Flags `with meta_if(...)` (a bare imported name) and `allo.meta_elif`/`allo.meta_else` blocks that
do not directly follow an `allo.meta_if` or `allo.meta_elif` block in the same body.

## Why is this bad?
Allo recognises meta (compile-time) control only as attribute calls on `allo`
(`Unsupported meta function`) and pairs `meta_elif`/`meta_else` with the block before them
(`Unmatched allo.meta_elif()`).

## Example
```python
with meta_if(i == 0):
    ...
x = 1
with allo.meta_else():
    ...
```
Use instead:
```python
with allo.meta_if(i == 0):
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
                    yield Finding(
                        use.range,
                        f"Unmatched allo.{use.func}(): it must directly follow a "
                        "'with allo.meta_if(...)' or 'with allo.meta_elif(...)' block.",
                        {"region": region.name, "kernel": kernel.name, "func": use.func},
                    )
