"""The reorder updates a region called from a kernel.

Fix: ADF005 Reorder inner(...) to inner(X, Y) and update 1 call
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def inner(Y: int32[M], X: int32[M]):
    @df.kernel(mapping=[1], args=[X, Y])
    def copy(local_X: int32[M], local_Y: int32[M]):
        for i in range(M):
            local_Y[i] = local_X[i]


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def wrapper(local_A: int32[M], local_B: int32[M]):
        inner(local_B, local_A)
