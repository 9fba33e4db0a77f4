"""A build without a target is told to build for the simulator.

Fix: ADF052 Build for the simulator: target="simulator"
After: nothing
"""

import allo
from allo.ir.types import int32
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def inc(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = local_A[i] + 1


mod = df.build(top)
A = np.arange(M, dtype=np.int32)
B = np.zeros(M, dtype=np.int32)
mod(A, B)
