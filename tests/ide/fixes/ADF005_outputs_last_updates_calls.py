"""Outputs last, with the calls updated; one action fixes every output.

C and D are both flagged; both problems offer the same reorder, which fixes both
(test_code_actions.py checks that one action answers a range over both). The call names
the parameters in declaration order: it is permuted with them.

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
    A = np.arange(M, dtype=np.int32)
    B = np.full(M, 2, dtype=np.int32)
    C = np.zeros(M, dtype=np.int32)
    D = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="vitis_hls")
    mod(C, A, D, B)
    np.testing.assert_array_equal(C, A + B)
    np.testing.assert_array_equal(D, A - B)
