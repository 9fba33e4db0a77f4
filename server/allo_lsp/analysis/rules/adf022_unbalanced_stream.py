"""ADF022 unbalanced-stream: a stream that is put but never got, or got but never put

## What it does
Flags a declared stream that some kernel puts to and no kernel gets from, or the reverse.

## Why is this bad?
Streams are bounded FIFOs: a producer blocks once the FIFO is full, a consumer waits forever on
an empty one. The design deadlocks (and the simulator hangs silently).

## Example
```python
pipe: Stream[int32, 4]

@df.kernel(mapping=[1], args=[A])
def producer(local_A: int32[N]):
    for i in range(N):
        pipe.put(local_A[i])
```
Use instead: add the consumer.
```python
@df.kernel(mapping=[1], args=[B])
def consumer(local_B: int32[N]):
    for i in range(N):
        local_B[i] = pipe.get()
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        for s in region.streams:
            if bool(s.puts) == bool(s.gets):
                continue
            done, missing = ("put", "got") if s.puts else ("got", "put")
            kernels = ", ".join(dict.fromkeys(u.kernel for u in (s.puts or s.gets)))
            yield Finding(
                s.range,
                f"Stream '{s.name}' is {done} (in {kernels}) but never {missing}: the design "
                f"deadlocks once the FIFO {'fills' if s.puts else 'runs dry'}. Add the matching "
                f"{'get' if s.puts else 'put'} in another kernel.",
                {"region": region.name, "stream": s.name},
            )
