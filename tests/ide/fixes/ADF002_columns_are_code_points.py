"""Columns are code points: names and comments with non-ASCII letters on the edited lines.

Fix: ADF002 Declare 'n' as int32[1] (and update 1 kernel, 1 call)
After: ADF005
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(Ä: int32[M], n: int32):
    @df.kernel(mapping=[1], args=[Ä, n])
    def add(local_Ä: int32[M], local_n: int32):
        for i in range(M):
            local_Ä[i] += local_n  # «n» fois


mod = df.build(top, target="simulator")
mod(Ä, n)  # «Ä»
