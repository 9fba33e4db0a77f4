"""The legacy order keeps the layout of a multi-line signature and puts the unused parameter last.

`spare` is bound by no kernel: it keeps its place relative to the others, at the end.
Each parameter takes its comment along. The call in the test function, written for the
declaration order (its names say so), is updated, odd spacing included; the keyword call is
left alone (it is already right on every build).

Fix: ADF003 Reorder top(...) to top(inp, out, spare) and update 1 call
After: ADF006
"""

import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16

@df.region()
def top(
    spare: int32[M],  # reserved
    out: int32[M],
    inp: int32[M],    # the input
):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[inp])
    def load(local_in: int32[M]):
        for i in range(M):
            pipe.put(local_in[i])

    @df.kernel(mapping=[1], args=[out])
    def store(local_out: int32[M]):
        for i in range(M):
            local_out[i] = pipe.get() + 1


mod = df.build(top, target="simulator")


def test_top():
    spare = np.zeros(M, dtype=np.int32)
    inp = np.arange(M, dtype=np.int32)
    out = np.zeros(M, dtype=np.int32)
    mod(spare,   out,   inp)  # odd spacing survives
    np.testing.assert_array_equal(out, inp + 1)


def by_keyword(s, o, i):
    mod(spare=s, out=o, inp=i)
