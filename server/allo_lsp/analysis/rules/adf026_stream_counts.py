"""ADF026 stream-counts: a stream's puts and gets, counted over its loops and PEs, differ

## What it does
Counts the elements each side of a scalar stream moves when every use sits in loops whose trip
counts fold to constants (`range(...)`, `allo.grid(...)`, `allo.meta_for(...)`), outside any
branch or `while` loop: the uses times their trip counts times the PEs of their kernel. Flags a
stream whose puts and gets both exist and differ, with both counts. The counts are definite only
for constant trip counts: a stream with a use the rule cannot count is not reported, nor one with
a malformed put (ADF021). A stream put and never got (or the reverse) is ADF022's.

## Why is this bad?
A FIFO moves one element per put and per get. With fewer gets the extra elements stay in the FIFO
and, once more are left than its depth, the producer blocks forever; with fewer puts the consumer
waits forever for the missing ones. Either way the design hangs, or leaves data behind.

## Example
```python
@df.kernel(mapping=[1], args=[A])
def producer(local_A: int32[M, N]):
    for i, j in allo.grid(M, N):
        pipe.put(local_A[i, j])  # M * N puts

@df.kernel(mapping=[1], args=[B])
def consumer(local_B: int32[M]):
    for i in range(M):
        local_B[i] = pipe.get()  # M gets
```
Use instead: get every element that is put (here `for i, j in allo.grid(M, N)` in the consumer).
"""

from allo_lsp.analysis.model import Region, StreamUse
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.types import Dim

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        for s in region.streams:
            if s.type is None or s.type.dims or not s.puts or not s.gets:
                continue
            if any(u.arg_count != 1 for u in s.puts):  # a malformed put (ADF021) moves nothing definite
                continue
            puts, gets = _counted(region, s.puts), _counted(region, s.gets)
            if puts is None or gets is None or sum(puts.values()) == sum(gets.values()):
                continue
            put, got = sum(puts.values()), sum(gets.values())
            depth = s.type.depth
            if put > got and isinstance(depth, int) and put - got <= depth:
                outcome = f"{_plural(put - got, 'element')} left in the FIFO (depth {depth}) when the design ends"
            elif put > got:
                outcome = (
                    f"{_plural(put - got, 'element')} too many: the producer blocks forever once the FIFO "
                    f"(depth {_dim(depth)}) is full, and the design hangs"
                )
            else:
                outcome = f"the consumer waits forever for {_plural(got - put, 'missing element')}: the design hangs"
            yield Finding(
                s.range,
                f"Stream '{s.name}' is put {put} times ({_listed(puts)}) but got {got} times "
                f"({_listed(gets)}): {outcome}. The counts are definite only for constant trip counts.",
                {"region": region.name, "stream": s.name, "puts": put, "gets": got},
            )


def _counted(region: Region, uses: list[StreamUse]) -> dict[str, int] | None:
    """Elements moved per kernel (trip counts times PEs); None when one use cannot be counted."""
    counts: dict[str, int] = {}
    for u in uses:
        kernel = region.kernel(u.kernel)
        pes = kernel.pe_count if kernel else None
        if u.trips is None or pes is None:
            return None
        counts[u.kernel] = counts.get(u.kernel, 0) + u.trips * pes
    return counts


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}: {n}" for k, n in counts.items())


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _dim(d: Dim) -> str:
    return "?" if d is None else str(d)
