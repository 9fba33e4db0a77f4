"""A consumer-first chain of three kernels, built for hw_emu: the producers move first.

Each kernel moves with the comment lines right above its decorator; the stream declared between
two kernels, the comment separated by a blank line and the blank lines stay where they are.

Fix: ADF023 Define the kernels producers first (load, work, store)
After: nothing
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df

M = 16


@df.region()
def top(A: int32[M], B: int32[M]):
    # The region's streams.

    first: Stream[int32, 4]

    # Writes the result.
    @df.kernel(mapping=[1], args=[A, B])  # A first, as older builds order the top (ADF003)
    def store(local_A: int32[M], local_B: int32[M]):
        for i in range(M):
            local_B[i] = second.get()

    second: Stream[int32, 4]

    @df.kernel(mapping=[1])
    def work():
        for i in range(M):
            second.put(first.get() + 1)  # one per element

    # Reads the input,
    # one element at a time.
    @df.kernel(mapping=[1], args=[A])
    def load(local_A: int32[M]):
        for i in range(M):
            first.put(local_A[i])


mod = df.build(top, target="vitis_hls", mode="hw_emu", project="top.prj")
