"""ADF052 build-without-target: `df.build(top)` with no target

## What it does
Flags a `df.build(region)` call that passes no `target` (by name or position), nor anything
else that is only read by an HLS build (`mode`, `project`, `configs`).

## Why is this bad?
`df.build`'s default target is `vitis_hls` with `mode="csim"`, not Allo's LLVM simulator as
its docs say: the module's call runs Vitis HLS C simulation, which needs `vitis_hls` on
`PATH`, and the build writes a `top.prj` project directory where the script runs.

## Example
```python
mod = df.build(top)
```
Use instead:
```python
mod = df.build(top, target="simulator")
```
(or `target="vitis_hls"`, said on purpose).
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.INFORMATION
_HLS_ONLY = ("target", "mode", "project", "configs", "*", "**")


def check(ctx: Context):
    for build in ctx.model.builds:
        if any(name in build.passed for name in _HLS_ONLY):
            continue
        yield Finding(
            build.range,
            f"df.build({build.region.name}) without target= builds for Vitis HLS C simulation "
            "(target 'vitis_hls', mode 'csim'), which needs vitis_hls on PATH, not for Allo's "
            'simulator: pass target="simulator" (or target="vitis_hls" to say so).',
            {"region": build.region.name},
        )
