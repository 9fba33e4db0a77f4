"""The inner loop's variable reuses the outer one's name, which Allo refuses; renamed with its
uses in the inner loop's body, the loop computes what Python computes. The use after the inner
loop is the outer variable's (Allo's scope has it again there) and keeps its name.

Fix: ADF095 Rename the loop variable 'i' to 'i_1'
After: nothing
"""

import allo
from allo.ir.types import int32
import allo.dataflow as df
import numpy as np

M = 4
N = 8


@df.region()
def top(A: int32[M, N], B: int32[M, N]):
    @df.kernel(mapping=[1], args=[A, B])
    def rows(a: int32[M, N], b: int32[M, N]):
        for i in range(M):
            for i in range(N):  # the first row, copied M times
                b[0, i] = a[0, i]
            b[i, N - 1] = a[i, 0] + 1


def test_top():
    A = np.arange(M * N, dtype=np.int32).reshape(M, N)
    B = np.zeros((M, N), dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(A, B)
    expected = np.zeros((M, N), dtype=np.int32)
    for row in range(M):
        expected[0] = A[0]
        expected[row, N - 1] = A[row, 0] + 1
    np.testing.assert_array_equal(B, expected)
