"""Pitfall: two kernels name a parameter `x`, each bound to a different region parameter.

Allo allows two kernels to reuse a parameter name, and fixed builds bind each
through the region parameter named in `args=[...]`. Older builds keyed top-level
arguments on the kernel's LOCAL name (upstream issue #592): both `x` merge into one
argument, so `top` gets a single array where the design needs `A` and `B`.

Should emit:
- line 33: ADF004 (the consumer's parameter `x`, bound to `B`, while the producer's
  `x` at line 28 is bound to `A`)
Should not emit anything else; in particular not ADF003 (the kernels bind `A` then `B`,
the declaration order). The fix is distinct names (`local_A`, `local_B`).
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(x: int32[M]):
        for i in range(M):
            pipe.put(x[i] + 10)

    @df.kernel(mapping=[1], args=[B])
    def consumer(x: int32[M]):
        for i in range(M):
            x[i] = pipe.get()


def test_merged_names():
    A = np.arange(M, dtype=np.int32)
    B = np.zeros(M, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)
    np.testing.assert_array_equal(B, A + 10)


if __name__ == "__main__":
    test_merged_names()
