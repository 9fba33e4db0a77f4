"""mapping= moves first in a multi-line decorator, each keyword with its comment.

Fix: ADF011 Move mapping= first
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], B: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(
        args=[A],     # what it reads
        mapping=[1],  # one PE
    )
    def producer(local_A: int32[M]):
        for i in range(M):
            pipe.put(local_A[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(M):
            local_B[i] = pipe.get()
