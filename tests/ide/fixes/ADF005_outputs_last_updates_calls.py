"""Outputs last, with the calls updated; one action fixes every output.

C and D are both flagged; both problems offer the same reorder, which fixes both
(test_code_actions.py checks that one action answers a range over both).

Fix: ADF005 Reorder top(...) to top(A, B, C, D) and update 1 call
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(C: int32[M], A: int32[M], D: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B, C, D])
    def add_sub(local_A: int32[M], local_B: int32[M], local_C: int32[M], local_D: int32[M]):
        for i in range(M):
            local_C[i] = local_A[i] + local_B[i]
            local_D[i] = local_A[i] - local_B[i]


def test_top():
    mod = df.build(top, target="vitis_hls")
    mod(c, a, d, b)
