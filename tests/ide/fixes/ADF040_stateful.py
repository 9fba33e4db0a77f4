"""stateful(T) becomes `T @ Stateful` (Allo PR #555); nothing else uses `stateful`, so its import
becomes that of Stateful (allo.ir.types has no `stateful` any more: importing it fails).

Fix: ADF040 Write 'Int(4) @ Stateful'
After: nothing
"""

import allo
from allo.ir.types import Int, int32, stateful
import allo.dataflow as df

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def running(local_A: int32[M], local_B: int32[M]):
        acc: stateful(Int(4)) = 0  # kept between calls
        for i in range(M):
            acc = acc + local_A[i]
            local_B[i] = acc
