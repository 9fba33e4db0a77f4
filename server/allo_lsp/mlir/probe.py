"""A tiny design whose compiled signature tells which argument order an Allo build uses.

The region declares `probe_top(a, b, c)`; its first kernel binds `a` and `c`, its second `b`.
Fixed builds compile `probe_top(a, b, c)` (declaration order), older ones `probe_top(a, c, b)`
(kernel-appearance order). The three types differ, so the compiled argument types alone identify
the order, which a user's own design often cannot (two arrays of one type). Every parameter is
bound once under a distinct local name (no merging, issue #592) and outputs come last in both
orders, so every target builds it.
"""

from __future__ import annotations

from allo_lsp.mlir.functions import parse_module
from allo_lsp.protocol.details import Details

PROBE_REGION = "probe_top"

PROBE_SOURCE = """\
import allo
from allo.ir.types import int32, float32
import allo.dataflow as df


@df.region()
def probe_top(a: int32[4], b: float32[4], c: int32[1]):
    @df.kernel(mapping=[1], args=[a, c])
    def first(local_a: int32[4], local_c: int32[1]):
        local_c[0] = local_a[0] + local_a[3]

    @df.kernel(mapping=[1], args=[b])
    def second(local_b: float32[4]):
        for i in range(4):
            local_b[i] = local_b[i] * 2.0
"""

DECLARATION_ORDER = ("memref<4xi32>", "memref<4xf32>", "memref<1xi32>")  # (a, b, c)
KERNEL_APPEARANCE_ORDER = ("memref<4xi32>", "memref<1xi32>", "memref<4xf32>")  # (a, c, b)


def reorders_arguments(mlir_text: str, details: Details | None = None) -> bool | None:
    """True: the build orders top arguments by kernel appearance (older). False: by declaration
    (fixed). None: the text does not parse or is not the probe's. `details`: the probe job's, with
    the runner's reading of the module when it made one (`functions.parse_module`)."""
    top = parse_module(mlir_text, details).top(PROBE_REGION)
    if top is None:
        return None
    return {DECLARATION_ORDER: False, KERNEL_APPEARANCE_ORDER: True}.get(top.arg_types)
