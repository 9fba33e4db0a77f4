"""String annotations stay strings, and numpy imported under its own name is written so at the call.

Fix: ADF002 Declare 'n' as uint8[1] (and update 1 kernel, 1 call)
After: ADF005
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy

M = 16

@df.region()
def top(A: "int32[M]", n: "uint8"):
    @df.kernel(mapping=[1], args=[A, n])
    def add(local_A: "int32[M]", local_n: "uint8"):
        for i in range(M):
            local_A[i] += local_n


mod = df.build(top, target="simulator")
mod(numpy.zeros(M, dtype=numpy.int32), 7)
