"""ADF011 mapping-not-first: `mapping` is not the first keyword

## What it does
Flags `@df.kernel(args=[...], mapping=[...])`: any keyword before `mapping`.

## Why is this bad?
Allo's builder reads keyword 0 as the mapping. With `args=` first the design passes type
inference and then breaks later in the build, far from the cause.

## Example
```python
@df.kernel(args=[A], mapping=[1])
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A])
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            if kernel.mapping_keyword_index and kernel.mapping_keyword_range:
                yield Finding(
                    kernel.mapping_keyword_range,
                    f"'mapping' must be the first keyword of @df.kernel on '{kernel.name}': Allo reads "
                    "keyword 0 as the mapping, so this passes type inference and then breaks the "
                    "build. Write @df.kernel(mapping=[...], args=[...]).",
                    {"region": region.name, "kernel": kernel.name},
                )
