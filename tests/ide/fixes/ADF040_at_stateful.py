"""`T @ stateful`, the spelling of the builds before PR #555, becomes `T @ Stateful`; the file
imports Stateful already, so the import of `stateful` (the last name of its line) goes.

Fix: ADF040 Write 'Stateful'
After: nothing
"""

import allo
from allo.ir.types import Stateful, float32, stateful
import allo.dataflow as df

M = 16


@df.region()
def top(A: float32[M], B: float32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def smooth(local_A: float32[M], local_B: float32[M]):
        window: float32[M] @ stateful = 0.0
        total: float32 @ Stateful = 0.0
        for i in range(M):
            window[i] = local_A[i]
            total = total + window[i]
            local_B[i] = total
