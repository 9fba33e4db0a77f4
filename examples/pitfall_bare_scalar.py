"""Pitfall: a bare scalar region parameter (`n: int32`) bound in `args=[...]`.

Should emit:
- line 24: ADF002 (`n` in the producer's `args=[A, n]`: Allo rejects it at type
  inference with "Scalar 'n' cannot appear in `args=[...]` on @df.kernel 'producer'. ...";
  the fix is `n: int32[1]`)
Should not emit anything else: ADF001 is not repeated for `n: int32` (line 21), which
Allo rejects only where a kernel binds it. The call site passes a Python int; after the fix it
passes `np.array([5], dtype=np.int32)` and the kernel reads `local_n[0]`.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], n: int32, B: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, n])
    def producer(local_A: int32[M], local_n: int32):
        for i in range(M):
            pipe.put(local_A[i] + local_n)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(M):
            local_B[i] = pipe.get()


def test_bare_scalar():
    A = np.arange(M, dtype=np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, 5, B)
    np.testing.assert_array_equal(B, A + 5)


if __name__ == "__main__":
    test_bare_scalar()
