"""Pitfall: dataflow code written against an old Allo API (removed syntax).

This is how Allo designs looked before typed region parameters and mandatory
`args=`: the region takes no parameters, its stream is created with `df.pipe(...)`,
and each kernel carries the names that became the top-level arguments (`A`, `B`).

Should emit (removed syntax):
- line 27: ADF040 (the parameter-less region `top()`; now
  `def top(A: Ty[M, N], B: Ty[M, N])` with `args=[A]` / `args=[B]` on the kernels)
- line 28: ADF040 (`df.pipe(dtype=Ty, shape=(), depth=4)`; now `pipe: Stream[Ty, 4]`)
Should not emit anything else. The legacy region is diagnosed once, as a whole: its
kernels' missing `args` (ADF012), the `df.pipe` stream (ADF020/ADF021/ADF022) and the
call `sim_mod(A, B)` (ADF060; an old build compiles `top(A, B)` from the kernel
parameters) are not reported separately.
"""

import allo
from allo.ir.types import int32
import allo.dataflow as df
import numpy as np

Ty = int32
M, N = 16, 16


@df.region()
def top():
    pipe = df.pipe(dtype=Ty, shape=(), depth=4)

    @df.kernel(mapping=[1])
    def producer(A: Ty[M, N]):
        for i, j in allo.grid(M, N):
            out: Ty = A[i, j]
            pipe.put(out)

    @df.kernel(mapping=[1])
    def consumer(B: Ty[M, N]):
        for i, j in allo.grid(M, N):
            data = pipe.get()
            B[i, j] = data + 1


def test_producer_consumer():
    A = np.random.randint(0, 64, (M, N)).astype(np.int32)
    B = np.zeros((M, N), dtype=np.int32)
    sim_mod = df.build(top, target="simulator")
    sim_mod(A, B)
    np.testing.assert_array_equal(B, A + 1)


if __name__ == "__main__":
    test_producer_consumer()
