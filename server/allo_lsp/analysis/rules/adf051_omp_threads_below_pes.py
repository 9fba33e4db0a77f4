"""ADF051 omp-threads-below-pes: more PE instances than the OpenMP threads set

## What it does
With `alloDataflow.ompThreads` (`allo-lsp check --omp-threads N`) set, flags a region whose PE
instances (each kernel's `prod(mapping)`, with those of the regions its kernels call, as the
region's hover counts them) outnumber the threads.

## Why is this bad?
Allo's simulator runs every PE as an OpenMP section, and a PE waiting on a stream spins in its
thread without yielding: with fewer threads than PEs the sections that would unblock it never
start, and the simulation hangs with no message (Allo PR #611). It shows only on some machines
and some FIFO depths, so it looks like a bug in the design. The editor's own jobs raise
`OMP_NUM_THREADS` to the PE count; a run of the design with the setting's value does not.

## Example
```python
# alloDataflow.ompThreads: 4
@df.region()
def top(A: int32[N, N], B: int32[N, N]):
    @df.kernel(mapping=[2, 4], args=[A, B])   # 8 PEs
    def pe(local_A: int32[N, N], local_B: int32[N, N]): ...
```
Use instead: `OMP_NUM_THREADS` (and `alloDataflow.ompThreads`) at least 8, or 0 to let the
editor's jobs use the PE count.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    threads = ctx.options.omp_threads
    if threads <= 0:
        return
    for region in ctx.model.regions:
        pes = region.pe_count
        if pes is None or pes <= threads:
            continue
        yield Finding(
            region.range,
            f"Region '{region.name}' runs {pes} PE instances but ompThreads is {threads}: with fewer "
            "OpenMP threads than PEs Allo's simulator can hang without a message (Allo PR #611). "
            f"Set OMP_NUM_THREADS (and alloDataflow.ompThreads) to at least {pes}.",
            {"region": region.name, "pes": pes, "threads": threads},
        )
