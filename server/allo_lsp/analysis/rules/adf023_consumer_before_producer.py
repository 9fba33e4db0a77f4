"""ADF023 consumer-before-producer: a kernel gets a stream from a kernel defined after it (vitis_hls)

## What it does
Flags a kernel that gets from a stream another kernel puts, when that producer is defined after
it in the region, in regions built for `vitis_hls`. Kernels that feed each other in a cycle
cannot all follow their producers: they are ADF027's, not this rule's. A region the file does
not build for `vitis_hls` is not checked (a region called from a kernel is built with its caller).

## Why is this bad?
For HLS targets Allo calls the kernels in the top function in their Python definition order, and
Vitis HLS dataflow expects the canonical forward order: producers first. A consumer called before
its producer gives all-zero outputs in `hw_emu` while Allo's simulator, which runs every PE at
once, passes (Allo issue #572, pull request #574).

## Example
```python
@df.kernel(mapping=[1], args=[B])
def store(local_B: int32[M]):  # gets `pipe`, defined before its producer
    for i in range(M):
        local_B[i] = pipe.get()

@df.kernel(mapping=[1], args=[A])
def load(local_A: int32[M]):
    for i in range(M):
        pipe.put(local_A[i])
```
Use instead: define `load` before `store` (the quick fix reorders the kernel definitions by their
streams, each kernel with the comments above it).
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.stream_graph import VITIS_HLS, StreamGraph, built_for

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        if not built_for(ctx.model, region, (VITIS_HLS,)):
            continue
        graph = StreamGraph.of(region)
        component = {k: i for i, c in enumerate(graph.components()) for k in c}
        position = {k: i for i, k in enumerate(graph.kernels)}
        for consumer in region.kernels:
            late = {
                producer: streams
                for (producer, c), streams in graph.edges.items()
                if c == consumer.name
                and component[producer] != component[c]
                and position[producer] > position[consumer.name]
            }
            if not late:
                continue
            fed = "; ".join(f"{', '.join(repr(s) for s in streams)} from '{p}'" for p, streams in late.items())
            yield Finding(
                consumer.range,
                f"Kernel '{consumer.name}' gets {fed}, defined after it: for vitis_hls Allo calls the "
                f"kernels in definition order, and hw_emu then gives all-zero outputs while the "
                f"simulator passes (Allo #572). Define the producers first.",
                {"region": region.name, "kernel": consumer.name},
            )
