"""ADF040 removed-syntax: syntax older Allo versions accepted and current ones do not

## What it does
Flags `df.pipe(dtype=..., shape=(), depth=...)` streams, string layouts (`Layout("S0R")`),
parameter-less regions whose kernels take global arrays with no `args=[...]`, and a kernel's
`x: stateful(T)` (or `x: T @ stateful`) declarations, with the modern spelling.

## Why is this bad?
These forms were removed from Allo; code copied from older examples no longer builds.
`stateful(T)` became `T @ Stateful` in March 2026 (Allo PR #555): `allo.ir.types` has no
`stateful` any more, so even importing it fails.

## Example
```python
@df.region()
def top():
    pipe = df.pipe(dtype=int32, shape=(), depth=4)

    @df.kernel(mapping=[1])
    def producer(A: int32[M]): ...
```
Use instead:
```python
@df.region()
def top(A: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[M]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for old in ctx.model.string_layouts:
        target = old.replacement or "[S(0), R]"
        yield Finding(
            old.range,
            f"String layouts were removed: write the layout as a list, '{target}'.",
            {"kind": old.kind, "replacement": target},
        )
    for region in ctx.model.regions:
        for old in region.removed_syntax:
            if old.kind == "df.pipe":
                message = f"df.pipe(...) was removed: declare the stream as '{old.replacement}'."
            elif old.kind == "stateful()":
                message = f"stateful(T) was removed (Allo PR #555): write '{old.replacement}'."
            elif old.kind == "@ stateful":
                message = "'@ stateful' is spelled '@ Stateful' since Allo PR #555 (allo.ir.types has no 'stateful')."
            else:
                message = (
                    f"Region '{region.name}' has no parameters and its kernels take arrays without "
                    "args=[...]: that API was removed. Declare the arrays as region parameters and "
                    "bind them with args=[...]."
                )
            data = {"region": region.name, "kind": old.kind}
            if old.replacement:
                data["replacement"] = old.replacement
            yield Finding(old.range, message, data)
