"""The call needs numpy and the file does not import it: the fix imports it, as np, after the other imports.

Fix: ADF002 Declare 'n' as int32[1] (and update 1 kernel, 1 call)
After: ADF005
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df

M = 16

@df.region()
def top(A: int32[M], n: int32):
    @df.kernel(mapping=[1], args=[A, n])
    def add(local_A: int32[M], local_n: int32):
        for i in range(M):
            local_A[i] += local_n


mod = df.build(top, target="simulator")
mod(a_buffer, 7)
