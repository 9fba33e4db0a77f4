"""A region with both a bare scalar and an order hazard: the reorder first, alone.

`scale` is a bare scalar (ADF002) and the first kernel binds `A` and it before `B` (ADF003).
The reorder and the scalar fix both edit the `def`: fix-all applies them in two rounds, each
on the text the other left (in one round, on the old text, the scalar's `[1]` landed on `B`).
The call names `B` and `A` where the declaration puts them: it was written for that order and
follows the reorder; it passes an array for `scale` already, which the scalar fix leaves.

Fix: ADF003 Reorder top(...) to top(A, scale, B) and update 1 call
After: ADF002
"""

import allo
from allo.ir.types import float32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(scale: float32, B: float32[N], A: float32[N]):
    pipe: Stream[float32, 4]

    @df.kernel(mapping=[1], args=[A, scale])
    def producer(local_A: float32[N], local_scale: float32):
        for i in range(N):
            pipe.put(local_A[i] * local_scale)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: float32[N]):
        for i in range(N):
            local_B[i] = pipe.get()


def test_top():
    A = np.arange(N, dtype=np.float32)
    B = np.zeros(N, dtype=np.float32)
    s = np.array([0.5], dtype=np.float32)
    mod = df.build(top, target="simulator")
    mod(s, B, A)
    np.testing.assert_allclose(B, A * 0.5)
