"""A bare scalar becomes a one-element array: in the region, in its kernel (parameter and uses) and at the call.

Fix: ADF002 Declare 'n' as int32[1] (and update 1 kernel, 1 call)
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], n: int32, B: int32[M]):
    @df.kernel(mapping=[1], args=[A, n, B])
    def scale(local_A: int32[M], local_n: int32, local_B: int32[M]):
        for i in range(M):
            local_B[i] = local_A[i] * local_n + local_n.reverse()


def test_top():
    A = np.arange(M, dtype=np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, 3, B)
