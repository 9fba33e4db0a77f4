"""Producer/consumer over one stream: the smallest complete dataflow design.

A module-level region `top(A, n, B)`. The producer reads `A` and the scalar
`n`, passed as a 1-element array (`int32[1]`, the supported way to hand a
scalar to a kernel), and streams `A[i, j] + n[0]` through a depth-4 FIFO; the
consumer drains the FIFO and writes twice each value into `B`.

Read-only parameters come first and the written one last, and the kernels bind
them in declaration order, so every Allo build compiles the same `top(A, n, B)`.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M, N = 8, 8


@df.region()
def top(A: int32[M, N], n: int32[1], B: int32[M, N]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, n])
    def producer(local_A: int32[M, N], local_n: int32[1]):
        for i, j in allo.grid(M, N):
            pipe.put(local_A[i, j] + local_n[0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M, N]):
        for i, j in allo.grid(M, N):
            v: int32 = pipe.get()
            local_B[i, j] = v * 2


def test_producer_consumer():
    A = np.arange(M * N, dtype=np.int32).reshape(M, N)
    n = np.array([3], dtype=np.int32)
    B = np.zeros((M, N), dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, n, B)
    np.testing.assert_array_equal(B, (A + n[0]) * 2)


if __name__ == "__main__":
    test_producer_consumer()
