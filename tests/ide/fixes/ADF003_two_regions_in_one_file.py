"""Two regions with the hazard in one file: each reorder updates its own region's calls.

`first`'s call names its parameters in declaration order (permuted); `second`'s call is in
older builds' order already (left). Both calls are in one test function. The quick fix of
`first` leaves `second` as it was: its ADF003, its outputs not last (ADF005) and its call,
swapped for the declaration order (ADF061), which its own reorder mends.

Fix: ADF003 Reorder first(...) to first(A, n, B) and update 1 call
After: ADF003, ADF005, ADF061
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

N = 8


@df.region()
def first(A: int32[N], B: int32[N], n: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, n])
    def producer(local_A: int32[N], local_n: int32[1]):
        for i in range(N):
            pipe.put(local_A[i] + local_n[0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[N]):
        for i in range(N):
            local_B[i] = pipe.get()


@df.region()
def second(Q: int32[N], P: int32[N], m: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[P, m])
    def producer(local_P: int32[N], local_m: int32[1]):
        for i in range(N):
            pipe.put(local_P[i] * local_m[0])

    @df.kernel(mapping=[1], args=[Q])
    def consumer(local_Q: int32[N]):
        for i in range(N):
            local_Q[i] = pipe.get()


def test_both():
    A = np.arange(N, dtype=np.int32)
    B = np.zeros(N, dtype=np.int32)
    n = np.array([3], dtype=np.int32)
    P = np.arange(N, dtype=np.int32)
    Q = np.zeros(N, dtype=np.int32)
    m = np.array([2], dtype=np.int32)
    mod1 = df.build(first, target="simulator")
    mod2 = df.build(second, target="simulator")
    mod1(A, B, n)
    mod2(P, m, Q)
    np.testing.assert_array_equal(B, A + 3)
    np.testing.assert_array_equal(Q, P * 2)
