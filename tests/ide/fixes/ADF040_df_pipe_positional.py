"""df.pipe with positional arguments.

Fix: ADF040 Migrate df.pipe to 'pipe: Stream[float32, 8]'
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: float32[M], B: float32[M]):
    pipe = df.pipe(float32, (), 8)

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: float32[M]):
        for i in range(M):
            pipe.put(local_A[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: float32[M]):
        for i in range(M):
            local_B[i] = pipe.get()
