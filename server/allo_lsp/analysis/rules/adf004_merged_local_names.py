"""ADF004 merged-local-names: two kernels bind different region parameters through one local name

## What it does
Flags a kernel parameter whose name another kernel of the same region already uses for a
different region parameter.

## Why is this bad?
Older Allo builds key top-level arguments on the kernel's local parameter name, so both kernels'
parameters merge into one top argument (Allo issue #592): one array is silently dropped.

## Example
```python
@df.kernel(mapping=[1], args=[A])
def load(x: int32[N]): ...

@df.kernel(mapping=[1], args=[B])
def store(x: int32[N]): ...
```
Use instead:
```python
@df.kernel(mapping=[1], args=[A])
def load(x_A: int32[N]): ...

@df.kernel(mapping=[1], args=[B])
def store(x_B: int32[N]): ...
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding, legacy_hazard_severity

SEVERITY = Severity.WARNING
severity_for = legacy_hazard_severity


def check(ctx: Context):
    for region in ctx.model.regions:
        first: dict[str, tuple[str, str]] = {}  # local name -> (kernel, region parameter)
        for kernel in region.kernels:
            for kp in kernel.params:
                if kp.bound_to is None:
                    continue
                seen = first.setdefault(kp.name, (kernel.name, kp.bound_to))
                if seen[1] == kp.bound_to or seen[0] == kernel.name:
                    continue
                yield Finding(
                    kp.range,
                    f"Kernels '{seen[0]}' and '{kernel.name}' both name a parameter '{kp.name}', bound "
                    f"to '{seen[1]}' and '{kp.bound_to}': older Allo builds key top arguments on this "
                    f"local name and merge them into one (Allo issue #592). Rename this one, e.g. "
                    f"'{kp.name}_{kp.bound_to}'.",
                    {
                        "region": region.name,
                        "kernel": kernel.name,
                        "param": kp.name,
                        "new_name": f"{kp.name}_{kp.bound_to}",
                    },
                )
