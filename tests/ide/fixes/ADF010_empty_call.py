"""A missing mapping is added first: `@df.kernel()`.

Without args= the kernel's parameters stay unbound: ADF012 remains, another problem.

Fix: ADF010 Add mapping=[1] as the first keyword
After: ADF006, ADF012
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel()
    def k(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = local_A[i]
