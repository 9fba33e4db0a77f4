"""A region defined inside a test function, as most of Allo's own tests do.

`M` and `Ty` are locals of `test_vector_add`, not module globals: the region,
its kernels and their annotations (`Ty[M]`) resolve them from the enclosing
function. The first kernel adds `A` and `B` element-wise and streams the sums;
the second writes them into `C`. The region is built and called inside the test.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np


def test_vector_add():
    M = 16
    Ty = int32

    @df.region()
    def top(A: Ty[M], B: Ty[M], C: Ty[M]):
        sums: Stream[Ty, 4]

        @df.kernel(mapping=[1], args=[A, B])
        def adder(local_A: Ty[M], local_B: Ty[M]):
            for i in range(M):
                sums.put(local_A[i] + local_B[i])

        @df.kernel(mapping=[1], args=[C])
        def writer(local_C: Ty[M]):
            for i in range(M):
                local_C[i] = sums.get()

    A = np.random.randint(-100, 100, M).astype(np.int32)
    B = np.random.randint(-100, 100, M).astype(np.int32)
    C = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    np.testing.assert_array_equal(C, A + B)


if __name__ == "__main__":
    test_vector_add()
