"""np.exp in a kernel becomes allo.exp, and allo is imported: the file did not.

Fix: ADF070 Replace np.exp with allo.exp
After: nothing
"""

from allo.ir.types import float32
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: float32[M], B: float32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def softplus(local_A: float32[M], local_B: float32[M]):
        for i in range(M):
            local_B[i] = np.exp(local_A[i]) + 1.0


golden = np.exp(np.ones(M, dtype=np.float32)) + 1.0
