"""Pitfall: `args=` written before `mapping=` in `@df.kernel(...)`.

Allo's builder reads keyword 0 of the decorator as the mapping. With
`@df.kernel(args=[A], mapping=[1])` type inference still passes, then the build
breaks, because `[A]` is taken for the mapping.

Should emit:
- line 25: ADF011 (the producer's decorator: `mapping` must be the first keyword)
Should not emit: the consumer's decorator (line 30) is written correctly; nothing else
is flagged (not ADF010: the mapping is there, only misplaced).
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(args=[A], mapping=[1])
    def producer(local_A: int32[M]):
        for i in range(M):
            pipe.put(local_A[i] - 1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(M):
            local_B[i] = pipe.get()


def test_mapping_order():
    A = np.arange(M, dtype=np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)
    np.testing.assert_array_equal(B, A - 1)


if __name__ == "__main__":
    test_mapping_order()
