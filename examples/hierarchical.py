"""Hierarchical regions: a region called from inside a kernel of another region.

`inner(X, Y)` is a complete two-kernel dataflow region (`Y = 2 * X + 1`
through a stream). The outer region `top(A, B)` has one kernel whose body
calls `inner(local_A, local_B)`, so `inner` runs as a sub-dataflow of `top`.
Only `top` is built; `inner` is instantiated through the call.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def inner(X: int32[M], Y: int32[M]):
    doubled: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[X])
    def scale(local_X: int32[M]):
        for i in range(M):
            doubled.put(local_X[i] * 2)

    @df.kernel(mapping=[1], args=[Y])
    def offset(local_Y: int32[M]):
        for i in range(M):
            local_Y[i] = doubled.get() + 1


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def wrapper(local_A: int32[M], local_B: int32[M]):
        inner(local_A, local_B)


def test_hierarchical():
    A = np.random.randint(-50, 50, M).astype(np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)
    np.testing.assert_array_equal(B, 2 * A + 1)


if __name__ == "__main__":
    test_hierarchical()
