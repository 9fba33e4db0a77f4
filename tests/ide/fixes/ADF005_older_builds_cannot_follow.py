"""Outputs last when older builds cannot follow.

The first kernel writes `C`, the second reads `A`: older builds compile (C, A) whatever
each kernel's args say, so the outputs-last order (A, C) now differs from it and ADF003
appears. The two rules conflict for this kernel order; the fix does what ADF005 asks.

Fix: ADF005 Reorder top(...) to top(A, C)
After: ADF003
New: ADF003
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(C: int32[M], A: int32[M]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[C])
    def store(local_C: int32[M]):
        for i in range(M):
            local_C[i] = pipe.get()

    @df.kernel(mapping=[1], args=[A])
    def load(local_A: int32[M]):
        for i in range(M):
            pipe.put(local_A[i])
