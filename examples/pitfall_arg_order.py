"""Pitfall: kernel-appearance order differs from the region's declaration order.

`top` declares `(arr_in, arr_out, n)`, but its first kernel binds `args=[arr_in, n]`
and only the later kernel binds `arr_out`. Fixed Allo builds compile
`top(arr_in, arr_out, n)`; older builds (before upstream PR #600) compile
`top(arr_in, n, arr_out)`, and the call `mod(inp, out, n_arr)` below then silently
hands `out` to `n` and `n_arr` to `arr_out`: no error, wrong results.

Should emit:
- line 26: ADF003 (region `top`: older builds compile `top(arr_in, n, arr_out)`), and
  line 26: ADF005 as information: built for the simulator, which takes any order, but Synthesize
  (vitis_hls) wants the written `arr_out` last. No ADF061: the call names (`inp`, `out`, `n_arr`)
match no parameter. The fix is to declare `(arr_in, n, arr_out)`, which also
puts the written `arr_out` last.
"""

import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

N = 16


@df.region()
def top(arr_in: int32[N], arr_out: int32[N], n: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[arr_in, n])
    def producer(local_in: int32[N], local_n: int32[1]):
        for i in range(N):
            pipe.put(local_in[i] * local_n[0])

    @df.kernel(mapping=[1], args=[arr_out])
    def consumer(local_out: int32[N]):
        for i in range(N):
            local_out[i] = pipe.get()


def test_arg_order():
    inp = np.arange(N, dtype=np.int32)
    out = np.zeros(N, dtype=np.int32)
    n_arr = np.array([3], dtype=np.int32)
    mod = df.build(top, target="simulator")
    mod(inp, out, n_arr)
    np.testing.assert_array_equal(out, inp * 3)


if __name__ == "__main__":
    test_arg_order()
