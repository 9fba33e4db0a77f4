"""A negative int8 product put into a Stream[int32] arrives zero-extended; stored first in an
int32 local, which Allo sign-extends, it arrives as the number it is. The put is two blocks
deep (a loop and an `if`): the local takes the put's indentation.

Fix: ADF090 Store the value in 'value: int32' before the put
After: nothing
"""

import allo
from allo.ir.types import int8, int32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(A: int8[N], B: int8[N], C: int32[N]):
    s: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, B])
    def producer(a: int8[N], b: int8[N]):
        for i in range(N):
            if i >= 0:
                s.put(a[i] * b[i])  # the product is typed Int(16)

    @df.kernel(mapping=[1], args=[C])
    def consumer(c: int32[N]):
        for i in range(N):
            c[i] = s.get()


def test_top():
    A = np.array([-3, 5, -7, 2, 0, -1, 4, -8], dtype=np.int8)
    B = np.array([5, 3, 2, -6, 9, 1, -4, 8], dtype=np.int8)
    C = np.zeros(N, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B, C)
    np.testing.assert_array_equal(C, A.astype(np.int32) * B.astype(np.int32))
