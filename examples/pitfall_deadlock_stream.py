"""Pitfall: a stream that is put but never got (the design deadlocks).

The producer feeds `pipe`, which the consumer drains, and also copies every value
into `tap`, a debug stream that no kernel reads. Once `tap`'s 4 slots are full the
producer blocks on its fifth `put`, the consumer waits on `pipe` forever, and the
simulation hangs silently.

Should emit:
- line 25: ADF022 (the declaration of `tap`: put but never got)
Should not emit: `pipe` (line 24) is both put and got. The fix is to drop `tap` or
to add a kernel that reads it.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    pipe: Stream[int32, 4]
    tap: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[M]):
        for i in range(M):
            v: int32 = local_A[i] * 3
            pipe.put(v)
            tap.put(v)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(M):
            local_B[i] = pipe.get()


def test_deadlock_stream():
    A = np.arange(M, dtype=np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)  # hangs: `tap` fills up and blocks the producer
    np.testing.assert_array_equal(B, A * 3)


if __name__ == "__main__":
    test_deadlock_stream()
