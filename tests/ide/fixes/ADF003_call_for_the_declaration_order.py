"""A call written for the declaration order is permuted with it.

`mod(A, B, n)` names the region's parameters where the declaration puts them: it was
written for that order, and after the reorder it passes `mod(A, n, B)`.

Fix: ADF003 Reorder top(...) to top(A, n, B) and update 1 call
After: nothing
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(A: int32[N], B: int32[N], n: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, n])
    def producer(local_A: int32[N], local_n: int32[1]):
        for i in range(N):
            pipe.put(local_A[i] + local_n[0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[N]):
        for i in range(N):
            local_B[i] = pipe.get()


def test_top():
    A = np.arange(N, dtype=np.int32)
    B = np.zeros(N, dtype=np.int32)
    n = np.array([3], dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, n)
    np.testing.assert_array_equal(B, A + 3)
