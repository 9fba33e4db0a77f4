"""ADF017 pid-axes: `get_pid()` unpacks the wrong number of axes

## What it does
Flags `i, j = df.get_pid()` when the number of names differs from the number of `mapping` axes,
or exceeds 3.

## Why is this bad?
`get_pid()` yields one compile-time index per mapping axis (at most 3); a mismatch fails the build
or indexes the wrong PE.

## Example
```python
@df.kernel(mapping=[2, 2], args=[A])
def k(local_A: int32[N]):
    i = df.get_pid()
```
Use instead:
```python
@df.kernel(mapping=[2, 2], args=[A])
def k(local_A: int32[N]):
    i, j = df.get_pid()
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for kernel in region.kernels:
            axes = len(kernel.mapping) if kernel.mapping is not None else None
            for unpack in kernel.pid_unpacks:
                if unpack.targets > 3:
                    message = f"get_pid() has at most 3 axes; this unpacks {unpack.targets}."
                elif axes is not None and unpack.targets != axes:
                    message = (
                        f"get_pid() in kernel '{kernel.name}' unpacks {unpack.targets} "
                        f"{'axis' if unpack.targets == 1 else 'axes'} but its mapping has {axes}: "
                        f"write {', '.join('ijk'[:axes]) if axes <= 3 else '...'} = df.get_pid()."
                    )
                else:
                    continue
                yield Finding(unpack.range, message, {"region": region.name, "kernel": kernel.name})
