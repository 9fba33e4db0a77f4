"""The name stored into `b[0]` is bound nowhere: a typo of the local `total`, one of the two
names in scope close to it. The module's `totals` is as close, but a NumPy array, which a kernel
cannot read (ADF089): the design would not build with it, so it is no candidate. (The typo is written only in the kernel: a name the
file writes anywhere else is not judged.)

Fix: ADF096 Correct the name to 'total'
After: nothing
"""

import allo
from allo.ir.types import int32
import allo.dataflow as df
import numpy as np

N = 8
totals = np.zeros(N, dtype=np.int32)


@df.region()
def top(A: int32[N], B: int32[1]):
    @df.kernel(mapping=[1], args=[A, B])
    def accumulate(a: int32[N], b: int32[1]):
        total: int32 = 0
        for i in range(N):
            total += a[i]
        b[0] = totl  # the sum


def test_top():
    A = np.arange(N, dtype=np.int32)
    B = np.zeros(1, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)
    assert B[0] == A.sum()
