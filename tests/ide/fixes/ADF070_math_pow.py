"""math.pow in a kernel becomes allo.power, Allo's name for it; allo is already imported.

Fix: ADF070 Replace math.pow with allo.power
After: nothing
"""

import math

import allo
from allo.ir.types import float32
import allo.dataflow as df

M = 16


@df.region()
def top(A: float32[M], B: float32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def square(local_A: float32[M], local_B: float32[M]):
        for i in range(M):
            local_B[i] = math.pow(local_A[i], 2.0)
