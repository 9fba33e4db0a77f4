"""Outputs last reorders the kernels' bindings too, so that older builds agree.

`A` is written and comes before the read-only `B`: the region becomes (B, A, C). Older
builds compile kernel-appearance order, so `first` binds `B` before `A` too (its
parameters follow their arguments); otherwise ADF003 would report the fixed region.

Fix: ADF005 Reorder top(...) to top(B, A, C) and update 1 kernel
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(A: int32[M], B: int32[M], C: int32[M]):
    @df.kernel(mapping=[1], args=[A, B])
    def first(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_A[i] = local_B[i]

    @df.kernel(mapping=[1], args=[C])
    def second(local_C: int32[M]):
        for i in range(M):
            local_C[i] = 0
