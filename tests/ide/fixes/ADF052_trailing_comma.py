"""A build call over several lines with a trailing comma: the target goes after the region,
before its comma and comment.

Fix: ADF052 Build for the simulator: target="simulator"
After: nothing
"""

import allo
from allo.ir.types import int32
import allo.dataflow as df

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def inc(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = local_A[i] + 1


def test_top():
    mod = df.build(
        top,  # the region
    )
    return mod
