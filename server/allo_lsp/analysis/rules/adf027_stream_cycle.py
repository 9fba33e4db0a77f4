"""ADF027 stream-cycle: kernels that put to each other through streams (vitis_hls)

## What it does
Reports, as information, kernels whose streams form a cycle (A puts to B, B puts to A, or a
longer loop), in regions built for `vitis_hls`. For a `csim` build (the default mode) it adds that
C simulation deadlocks. A region the file does not build for `vitis_hls` is not checked (a region
called from a kernel is built with its caller).

## Why is this bad?
Vitis C simulation runs the dataflow processes one after another, in call order: the first
kernel of the cycle blocks on a get its partner has not run yet, and `csim` deadlocks where
Allo's simulator, which runs every PE at once, passes. In hardware the kernels run concurrently,
but no definition order puts every producer before its consumer, which Vitis dataflow expects
(Allo issue #572): ADF023 cannot order these kernels.

## Example
```python
@df.kernel(mapping=[1], args=[A])
def ping(local_A: int32[M]):
    for i in range(M):
        fwd.put(local_A[i])
        local_A[i] = bwd.get()

@df.kernel(mapping=[1])
def pong():
    for i in range(M):
        bwd.put(fwd.get() + 1)
```
Use instead: a forward-only pipeline (`ping` -> `pong` -> a third kernel that writes the result),
or test the cycle with `target="simulator"` and synthesize it with `mode="csyn"`.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.stream_graph import CSIM, VITIS_HLS, StreamGraph, built_for

SEVERITY = Severity.INFORMATION


def check(ctx: Context):
    for region in ctx.model.regions:
        builds = built_for(ctx.model, region, (VITIS_HLS,))
        if not builds:
            continue
        graph = StreamGraph.of(region)
        csim = any(b.mode in (None, CSIM) for b in builds)
        for cycle in graph.components():
            if len(cycle) < 2:
                continue
            links = [
                f"{', '.join(streams)}: {p} -> {c}"
                for (p, c), streams in graph.edges.items()
                if p in cycle and c in cycle
            ]
            first = region.kernel(cycle[0])
            consequence = (
                "Vitis C simulation runs dataflow processes one after another, so csim deadlocks where "
                "Allo's simulator passes; "
                if csim
                else ""
            )
            yield Finding(
                first.range,  # type: ignore[union-attr]
                f"Kernels {', '.join(repr(k) for k in cycle)} put to each other through streams "
                f"({'; '.join(links)}): {consequence}no definition order puts every producer first, "
                f"as Vitis dataflow expects.",
                {"region": region.name, "kernel": cycle[0]},
            )
