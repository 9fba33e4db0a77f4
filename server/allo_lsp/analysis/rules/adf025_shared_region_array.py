"""ADF025 shared-region-array: a region array read (or written) by several PEs (HLS targets)

## What it does
Flags a region parameter that is an array when more than one PE reads it, or more than one PE
writes it, counting every PE of each kernel that reads or writes it (`mapping=[2, 2]` is four), in
regions built for `vitis_hls`, `vhls` or `pynq` (a region called from a kernel is built with its
caller). A kernel that names the array only inside `allo.meta_if/elif/else` branches counts as one
PE: the branches may pick a single one. Not reported when a layout shards the array (`@ [S(0), R]`
on the region or a kernel parameter), when a kernel's mapping does not fold, nor in a region the
file does not build for one of those targets.

## Why is this bad?
Allo copies each array argument into one buffer of the top function and hands that buffer to
every PE. Vitis HLS dataflow allows a buffer a single reader and a single writer: synthesis stops
with `[HLS 200-779] Non-shared array ... failed dataflow checking: it can only have a single reader
and a single writer` (Allo issues #446, #566), while the simulator passes.

## Example
```python
@df.region()
def top(A: float32[M, K], B: float32[K, N], C: float32[M, N]):
    @df.kernel(mapping=[P0, P1], args=[A, B, C])
    def gemm(local_A: float32[M, K], local_B: float32[K, N], local_C: float32[M, N]):
        ...  # all P0 * P1 PEs read A and B and write C
```
Use instead: one loader kernel (one PE) that reads the array and streams each PE its part, and
one storer kernel that gets the results and writes them.
"""

from allo_lsp.analysis.model import Access, Region, RegionParam
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.stream_graph import XILINX_HLS, built_for
from allo_lsp.analysis.types import AlloType

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region in ctx.model.regions:
        if not built_for(ctx.model, region, XILINX_HLS):
            continue
        for p in region.params:
            counts = _pe_counts(region, p)
            if counts is None:
                continue
            parts = [
                f"{verb} by {_total(n)} PEs ({_listed(n)})"
                for verb, n in zip(("read", "written"), counts)
                if _least(n) > 1
            ]
            if not parts:
                continue
            yield Finding(
                p.range,
                f"'{p.name}' is {' and '.join(parts)}: Vitis HLS dataflow allows an array one reader and "
                f"one writer ('can only have a single reader and a single writer', HLS 200-779; Allo "
                f"#446, #566). Load it in one kernel and stream each PE its part, or shard it with a "
                f"layout.",
                {"region": region.name, "param": p.name},
            )


# Per kernel: the PEs that read (or write) the array, and whether that is all of them or only
# at least one (every use sits in `allo.meta_*` branches, which pick PEs this rule does not fold).
Counts = dict[str, tuple[int, bool]]


def _pe_counts(region: Region, p: RegionParam) -> tuple[Counts, Counts] | None:
    """PEs per kernel that read and that write `p`; None when the rule cannot tell (not an
    array, sharded, a mapping that does not fold)."""
    if p.type is None or p.type.is_scalar or _sharded(p.type):
        return None
    readers: Counts = {}
    writers: Counts = {}
    for k in region.kernels:
        accesses: list[Access] = [kp.access for kp in k.params if kp.bound_to == p.name]
        if any(_sharded(kp.type) for kp in k.params if kp.bound_to == p.name):
            return None
        if p.name in k.captured:
            accesses.append(k.captured[p.name])
        if not any(a.reads or a.writes for a in accesses):
            continue
        if k.pe_count is None:
            return None
        every_pe = any(a.every_pe for a in accesses)
        pes = (k.pe_count, True) if every_pe else (1, k.pe_count == 1)
        if any(a.reads for a in accesses):
            readers[k.name] = pes
        if any(a.writes for a in accesses):
            writers[k.name] = pes
    return readers, writers


def _sharded(t: AlloType | None) -> bool:
    return t is not None and t.layout is not None and ("S(" in t.layout or "Shard" in t.layout)


def _least(counts: Counts) -> int:
    return sum(n for n, _ in counts.values())


def _total(counts: Counts) -> str:
    exact = all(e for _, e in counts.values())
    return str(_least(counts)) if exact else f"at least {_least(counts)}"


def _listed(counts: Counts) -> str:
    return ", ".join(f"{k}: {n}" if exact else f"{k}: 1 or more (meta branches)" for k, (n, exact) in counts.items())
