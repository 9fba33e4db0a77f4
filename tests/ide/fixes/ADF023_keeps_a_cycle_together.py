"""`sink` gets from `pong`, which feeds `ping` back: the cycle moves before `sink` as one block, in
its own order, and stays an ADF027 information (no order puts every producer of a cycle first).

Fix: ADF023 Define the kernels producers first (ping, pong, sink)
After: ADF027
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df

M = 16


@df.region()
def looped(A: int32[M], B: int32[M]):
    fwd: Stream[int32, 4]
    bwd: Stream[int32, 4]
    back: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, B])  # A first, as older builds order the top (ADF003)
    def sink(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = back.get()

    @df.kernel(mapping=[1], args=[A])
    def ping(local_A: int32[M]):
        for i in range(M):
            fwd.put(local_A[i])
            local_A[i] = bwd.get()

    @df.kernel(mapping=[1])
    def pong():
        for i in range(M):
            v: int32 = fwd.get()
            bwd.put(v)
            back.put(v)


looped_mod = df.build(looped, target="vitis_hls", mode="hw_emu", project="looped.prj")
