"""A systolic GEMM: one kernel mapped over a (M + 2) x (N + 2) grid of PEs.

`i, j = df.get_pid()` places each PE; an `allo.meta_if` / `allo.meta_elif` /
`allo.meta_else` chain (resolved at compile time, per PE) decides its role:
- the four corners do nothing;
- column 0 loads rows of `A` into `fifo_A`, row 0 loads columns of `B` into `fifo_B`;
- the last row drains `fifo_B`, the last column drains `fifo_A`;
- every inner PE multiplies what flows past it, forwards `a` right and `b` down,
  and writes its dot product into `C[i - 1, j - 1]`.
The FIFOs are stream arrays `Stream[int32, 4][P0, P1]` indexed with the PE ids.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M, N, K = 4, 4, 4
P0, P1 = M + 2, N + 2


@df.region()
def top(A: int32[M, K], B: int32[K, N], C: int32[M, N]):
    fifo_A: Stream[int32, 4][P0, P1]
    fifo_B: Stream[int32, 4][P0, P1]

    @df.kernel(mapping=[P0, P1], args=[A, B, C])
    def gemm(local_A: int32[M, K], local_B: int32[K, N], local_C: int32[M, N]):
        i, j = df.get_pid()
        # Corners: no work.
        with allo.meta_if(i in {0, M + 1} and j in {0, N + 1}):
            pass
        # Loaders: column 0 feeds rows of A, row 0 feeds columns of B.
        with allo.meta_elif(j == 0):
            for k in range(K):
                fifo_A[i, j + 1].put(local_A[i - 1, k])
        with allo.meta_elif(i == 0):
            for k in range(K):
                fifo_B[i + 1, j].put(local_B[k, j - 1])
        # Drainers: the last row and the last column discard what reaches them.
        with allo.meta_elif(i == M + 1 and j > 0):
            for k in range(K):
                b: int32 = fifo_B[i, j].get()
        with allo.meta_elif(j == N + 1 and i > 0):
            for k in range(K):
                a: int32 = fifo_A[i, j].get()
        # Compute PEs.
        with allo.meta_else():
            c: int32 = 0
            for k in range(K):
                a: int32 = fifo_A[i, j].get()
                b: int32 = fifo_B[i, j].get()
                c += a * b
                fifo_A[i, j + 1].put(a)
                fifo_B[i + 1, j].put(b)
            local_C[i - 1, j - 1] = c


def test_systolic_gemm():
    A = np.random.randint(-8, 8, (M, K)).astype(np.int32)
    B = np.random.randint(-8, 8, (K, N)).astype(np.int32)
    C = np.zeros((M, N), dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    np.testing.assert_array_equal(C, A @ B)


if __name__ == "__main__":
    test_systolic_gemm()
