"""A shadowing parameter is renamed in its kernel only.

Renamed: the parameter and its uses. Kept: `args=[A]` (the region parameter), the
attribute `.A`, the keyword `A=`, and the other kernel, where `A` is the region parameter
(captured) and whose own parameter `local_A` does not make the name taken.

Fix: ADF016 Rename 'A' to 'local_A'
After: ADF089, ADF096
(The kernel's odd uses do not build in Allo; they are kept for the rename.)
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def inc(A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = A[i] + A.shape[0] + helper(A=1) + cfg.A

    @df.kernel(mapping=[1], args=[A])
    def other(local_A: int32[M]):
        local_A[0] = A[1]
