"""A tiled float GEMM: a 2 x 2 grid of PEs, each computing one tile of C.

`mapping=[P0, P1]` (2 x 2) instantiates the kernel four times; `pi, pj =
df.get_pid()` picks the tile, and an `allo.grid` loop over the tile computes
`C[pi * Mt + i, pj * Nt + j]` from a full row of A and a full column of B.
The PEs write disjoint tiles, so they need no streams.
"""

import allo
from allo.ir.types import float32
import allo.dataflow as df
import numpy as np

M, N, K = 8, 8, 16
P0, P1 = 2, 2
Mt, Nt = M // P0, N // P1


@df.region()
def top(A: float32[M, K], B: float32[K, N], C: float32[M, N]):
    @df.kernel(mapping=[P0, P1], args=[A, B, C])
    def gemm(local_A: float32[M, K], local_B: float32[K, N], local_C: float32[M, N]):
        pi, pj = df.get_pid()
        for i, j in allo.grid(Mt, Nt):
            acc: float32 = 0.0
            for k in range(K):
                acc += local_A[pi * Mt + i, k] * local_B[k, pj * Nt + j]
            local_C[pi * Mt + i, pj * Nt + j] = acc


def test_tiled_gemm():
    A = np.random.rand(M, K).astype(np.float32)
    B = np.random.rand(K, N).astype(np.float32)
    C = np.zeros((M, N), dtype=np.float32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    test_tiled_gemm()
