"""`//` of two unsigned values does not build (Allo has only `floordivsi`); `/` of them is
`divui`, and for values never negative the floor of a quotient is its truncation: the same
number, in the same type. The augmented `//=` of them is the second problem: its own action
makes it `/=` (fix-all applies both).

Fix: ADF082 Divide with '/' (unsigned: the same quotient)
After: ADF082
"""

import allo
from allo.ir.types import uint8
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def top(A: uint8[N], B: uint8[N], C: uint8[N], D: uint8[N]):
    @df.kernel(mapping=[1], args=[A, B, C, D])
    def quotient(a: uint8[N], b: uint8[N], c: uint8[N], d: uint8[N]):
        for i in range(N):
            c[i] = a[i] // b[i]  # the high bit set in some: a signed division would differ
            d[i] = a[i]
            d[i] //= b[i]


def test_top():
    A = np.array([250, 7, 200, 9, 255, 128, 3, 100], dtype=np.uint8)
    B = np.array([3, 2, 130, 9, 1, 255, 4, 7], dtype=np.uint8)
    C = np.zeros(N, dtype=np.uint8)
    D = np.zeros(N, dtype=np.uint8)
    mod = df.build(top, target="simulator")
    mod(A, B, C, D)
    np.testing.assert_array_equal(C, A // B)
    np.testing.assert_array_equal(D, A // B)
