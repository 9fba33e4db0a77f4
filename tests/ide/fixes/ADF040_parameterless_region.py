"""A parameterless region gets region parameters and args=[...] on its kernels.

Both kernels take `A`: one region parameter. `local_B` is already a name in `consumer`,
so its `B` becomes `local_B_1`.

Fix: ADF040 Migrate top() to top(A, B) with args=[...] on 2 kernels
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top():
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1])
    def producer(A: int32[M]):
        for i in range(M):
            pipe.put(A[i])

    @df.kernel(
        mapping=[1],
    )
    def consumer(A: int32[M], B: int32[M]):
        for i in range(M):
            local_B: int32 = pipe.get()
            B[i] = local_B + A[i]


mod = df.build(top, target="simulator")
