"""stateful(T) in a kernel becomes `T @ Stateful`; a plain Allo function (not a kernel, not
flagged) still uses `stateful`, so its import stays and Stateful is imported beside it.

Fix: ADF040 Write 'int32 @ Stateful'
After: nothing
"""

import allo
from allo.ir.types import int32, stateful
import allo.dataflow as df

M = 16


def counter(x: int32) -> int32:
    seen: stateful(int32) = 0
    seen = seen + x
    return seen


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def running(local_A: int32[M], local_B: int32[M]):
        acc: stateful(int32) = 0
        for i in range(M):
            acc = acc + local_A[i]
            local_B[i] = acc
