"""df.pipe becomes a Stream declaration, and Stream is imported.

Fix: ADF040 Migrate df.pipe to 'pipe: Stream[int32, 4]'
After: nothing
"""

import allo
from allo.ir.types import int32, float32
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], B: int32[M]):
    pipe = df.pipe(dtype=int32, shape=(), depth=4)  # the only channel

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[M]):
        for i in range(M):
            pipe.put(local_A[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(M):
            local_B[i] = pipe.get()
