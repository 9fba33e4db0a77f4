"""The rename picks a free name when the suggested one is taken.

`local_A` is a module global and `local_A_1` a local of the kernel: both taken.
`other` may reuse any name: its parameter `local_A_2` does not count.

Fix: ADF016 Rename 'A' to 'local_A_2'
After: nothing
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

local_A = 3


@df.region()
def top(A: int32[M]):
    @df.kernel(mapping=[1], args=[A])
    def inc(A: int32[M]):
        local_A_1: int32 = 2
        A[0] = local_A_1

    @df.kernel(mapping=[1], args=[A])
    def other(local_A_2: int32[M]):
        local_A_2[1] = 0
