"""A call already written in the order the reorder makes is left as it is.

`pipeline` declares `(B, A, scale)`; its kernels bind `A, scale`, then `B`. The call
`mod(A, 0.5, B)` passes `A` and `B` where older builds take them: it was written for that
order, which the reorder declares, so it is not permuted (it was, into `mod(0.5, B, A)`).

Fix: ADF003 Reorder pipeline(...) to pipeline(A, scale, B); 1 call already in that order
After: ADF002
"""

import allo
from allo.ir.types import float32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def pipeline(B: float32[N], A: float32[N], scale: float32):
    pipe: Stream[float32, 4]

    @df.kernel(mapping=[1], args=[A, scale])
    def producer(local_A: float32[N], local_scale: float32):
        for i in range(N):
            pipe.put(local_A[i] * local_scale)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: float32[N]):
        for i in range(N):
            local_B[i] = pipe.get()


def test_pipeline():
    A = np.arange(N, dtype=np.float32)
    B = np.zeros(N, dtype=np.float32)
    mod = df.build(pipeline, target="simulator")
    mod(A, 0.5, B)
    np.testing.assert_allclose(B, A * 0.5)
