"""A string layout, `Layout("S0R")`, becomes a list.

Fix: ADF040 Replace Layout("S0R") with [S(0), R]
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

from allo.memory import Layout

S = Layout.Shard
R = Layout.Replicate
Ly = Layout("S0R")


@df.region()
def top(A: int32[M, 8], B: int32[M, 8]):
    @df.kernel(mapping=[2], args=[A, B])
    def rows(local_A: int32[M, 8] @ Ly, local_B: int32[M, 8] @ Ly):
        for i, j in allo.grid(M // 2, 8):
            local_B[i, j] = local_A[i, j] + 1
