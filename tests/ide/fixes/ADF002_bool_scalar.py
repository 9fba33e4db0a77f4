"""A bool scalar: the call writes `np.bool_`.

`np.bool` does not exist in numpy 1.24 to 1.26.

Fix: ADF002 Declare 'flag' as bool[1] (and update 1 kernel, 1 call)
After: ADF005
"""

import allo
from allo.ir.types import int32, float32, bool, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], flag: bool):
    @df.kernel(mapping=[1], args=[A, flag])
    def add(local_A: int32[M], local_flag: bool):
        for i in range(M):
            local_A[i] += 1


mod = df.build(top, target="simulator")
mod(a_buffer, True)
