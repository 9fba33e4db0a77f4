"""The kernel already has a `value` and a `value_1`: the local takes the next free name. The
stream is an array, `Stream[int32, 4][2]`: its element type is `int32`. The put's value spans
two lines inside the put's parentheses: on a line of its own it gets parentheses of its own.

Fix: ADF090 Store the value in 'value_2: int32' before the put
After: nothing
"""

import allo
from allo.ir.types import int16, int32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(A: int16[N], C: int32[N]):
    s: Stream[int32, 4][2]

    @df.kernel(mapping=[1], args=[A])
    def producer(a: int16[N]):
        for i in range(N):
            value: int16 = a[i]
            value_1: int16 = a[N - 1 - i]
            s[0].put(value -
                  value_1)

    @df.kernel(mapping=[1], args=[C])
    def consumer(c: int32[N]):
        for i in range(N):
            c[i] = s[0].get()


def test_top():
    A = np.array([-3, 5, -7, 2, 0, -1, 4, -8], dtype=np.int16)
    C = np.zeros(N, dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, C)
    np.testing.assert_array_equal(C, A.astype(np.int32) - A[::-1])
