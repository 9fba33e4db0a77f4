"""ADF024 stream-endpoints: a stream without exactly one producer and one consumer (HLS targets)

## What it does
Flags a scalar stream (not a stream array) that two kernels put (or get), that the PEs of a
kernel mapped over more than one PE all put (or get), or that one kernel both puts and gets, in
regions built for `vitis_hls`, `vhls` or `pynq`. A use inside an `allo.meta_if` branch is not
counted as every PE's: the branch may pick one PE. A region the file does not build for one of
those targets is not checked (a region called from a kernel is built with its caller), nor are
stream arrays (which PE uses which element is decided by indices this rule does not fold).

## Why is this bad?
Vitis HLS dataflow connects each stream from exactly one process to exactly one other; Allo
still generates one `hls::stream` shared by several kernel instances, and synthesis fails (Allo
issue #444). A kernel that both puts and gets a stream gets one stream argument whose direction
is its last use's.

## Example
```python
pipe: Stream[float32, 2]

@df.kernel(mapping=[P0], args=[A])
def gemv(local_A: float32[M, N]):
    ...
    pipe.put(partial)  # every one of the P0 PEs puts the same stream
```
Use instead: one stream per producer and consumer pair, a stream array indexed by the PE id.
```python
pipe: Stream[float32, 2][P0]
...
    pi = df.get_pid()
    pipe[pi].put(partial)
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.stream_graph import XILINX_HLS, built_for

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        if not built_for(ctx.model, region, XILINX_HLS):
            continue
        pes = {k.name: k.pe_count for k in region.kernels}
        for s in region.streams:
            if s.type is None or s.type.dims:
                continue
            reasons = []
            for uses, verb in ((s.puts, "put"), (s.gets, "got")):
                kernels = list(dict.fromkeys(u.kernel for u in uses))
                if len(kernels) > 1:
                    reasons.append(f"{verb} by {len(kernels)} kernels ({', '.join(kernels)})")
                for k in kernels:
                    every_pe = any(u.kernel == k and not u.meta_branch for u in uses)
                    if every_pe and (pes.get(k) or 1) > 1:
                        reasons.append(f"{verb} by each of the {pes[k]} PEs of '{k}'")
            getters = {u.kernel for u in s.gets}
            for k in dict.fromkeys(u.kernel for u in s.puts):
                if k in getters:
                    reasons.append(f"both put and got by '{k}' (Allo keeps only the last use's direction)")
            if reasons:
                yield Finding(
                    s.range,
                    f"Stream '{s.name}' is {'; '.join(reasons)}: Vitis HLS dataflow needs exactly one "
                    f"producer and one consumer per stream (Allo #444). Use one stream per pair, a "
                    f"stream array indexed by the PE id.",
                    {"region": region.name, "stream": s.name},
                )
