"""A bare scalar the kernels capture: its uses are indexed, and a call that passes a scalar passes an array.

`scale_k` reads the region parameter directly. The first call passes a variable holding an array: left as is.

Fix: ADF001 Declare 'k' as Ty[1] (and update 1 kernel, 1 call)
After: ADF005
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

Ty = float32


@df.region()
def top(A: Ty[M], B: Ty[M], k: Ty):
    @df.kernel(mapping=[1], args=[A, B])
    def scale_k(local_A: Ty[M], local_B: Ty[M]):
        for i in range(M):
            local_B[i] = local_A[i] * k + k


mod = df.build(top, target="simulator")
k_arr = np.array([2.0], dtype=np.float32)
mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), k_arr)
mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), 0.5 * 3)
