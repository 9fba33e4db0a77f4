"""Pitfall: a correct region called with its arguments swapped.

`top(A, B, C)` computes `C = 2 * A - B` and is correct. The call passes variables
named exactly like the parameters, but in another order: `mod(B, A, C)`. The count
matches, so nothing fails; the result is `2 * B - A`.

Should emit:
- line 42: ADF061 (the call `mod(B, A, C)`: the names match `top`'s parameters
  `(A, B, C)` in a different order; likely swapped)
Should not emit: the call in `test_fixed` (line 51) passes them in declaration order;
neither call has the wrong count (no ADF060).
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], B: int32[M], C: int32[M]):
    twice: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def double(local_A: int32[M]):
        for i in range(M):
            twice.put(local_A[i] * 2)

    @df.kernel(mapping=[1], args=[B, C])
    def subtract(local_B: int32[M], local_C: int32[M]):
        for i in range(M):
            local_C[i] = twice.get() - local_B[i]


def test_swapped_call():
    A = np.arange(M, dtype=np.int32)
    B = np.full(M, 7, dtype=np.int32)
    C = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(B, A, C)
    np.testing.assert_array_equal(C, 2 * A - B)  # fails: C holds 2 * B - A


def test_fixed():
    A = np.arange(M, dtype=np.int32)
    B = np.full(M, 7, dtype=np.int32)
    C = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    np.testing.assert_array_equal(C, 2 * A - B)


if __name__ == "__main__":
    test_fixed()
    test_swapped_call()
