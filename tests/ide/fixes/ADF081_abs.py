"""The builtin abs in a kernel becomes allo.abs, and allo is imported: the file did not.

Fix: ADF081 Replace abs with allo.abs
After: nothing
"""

from allo.ir.types import int32
import allo.dataflow as df

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def magnitude(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = abs(local_A[i])
