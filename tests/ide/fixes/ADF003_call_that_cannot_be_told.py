"""A call whose arguments do not tell which order it was written for is left as written.

`mod(A, out, np.array([3], ...))`: `A` is first in both orders, `out` and the expression
name no parameter. The reorder says so in its title and is never applied by fix-all (it
would break the call if it was written for the other order): ADF003 stays. A second action
permutes the call for a user who knows it was written for the declaration order.

Fix: ADF003 Reorder top(...) to top(A, n, B); 1 call left as written: the arguments do not tell the order
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
    out = np.zeros(N, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, out, np.array([3], dtype=np.int32))
    np.testing.assert_array_equal(out, A + 3)
