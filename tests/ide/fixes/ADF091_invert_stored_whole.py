"""Allo builds `~x` as `x`; `x ^ -1` flips every bit (`xori` in `Int(32)`, as `and_or_rule` types
it) and its low bits are those of `~x`. Stored into a `uint8` from a `uint8`, only those are kept:
NumPy's `~`. The other two inversions, of signed values stored wider and into a declared local,
are the next problems (fix-all mends all three: the test compares each with NumPy's `~`).

Fix: ADF091 Write '~x' as 'x ^ -1' (Allo builds '~x' as 'x')
After: ADF091
"""

import allo
from allo.ir.types import int8, int16, uint8
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(A: uint8[N], B: int8[N], C: uint8[N], D: int16[N], E: int8[N]):
    @df.kernel(mapping=[1], args=[A, B, C, D, E])
    def flip(a: uint8[N], b: int8[N], c: uint8[N], d: int16[N], e: int8[N]):
        for i in range(N):
            c[i] = ~a[i]  # 255 - a[i]
            d[i] = ~b[i]  # a signed value sign-extends: -b[i] - 1 in int16
            x: int8 = ~(b[i] + 1)  # an int33 sum, its low 8 bits kept
            e[i] = x


def test_top():
    A = np.array([0, 1, 7, 128, 200, 254, 255, 42], dtype=np.uint8)
    B = np.array([0, -1, 5, -128, 127, -7, 100, -100], dtype=np.int8)
    C = np.zeros(N, dtype=np.uint8)
    D = np.zeros(N, dtype=np.int16)
    E = np.zeros(N, dtype=np.int8)
    mod = df.build(top, target="simulator")
    mod(A, B, C, D, E)
    np.testing.assert_array_equal(C, ~A)
    np.testing.assert_array_equal(D, (~B).astype(np.int16))
    np.testing.assert_array_equal(E, (~(B.astype(np.int64) + 1)).astype(np.int8))
