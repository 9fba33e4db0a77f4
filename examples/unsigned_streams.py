"""Unsigned and block-element streams.

- `codes` is declared with a string annotation, `"UInt(B * 8)[M]"` (B bytes
  per element, so `UInt(16)[M]`); the kernel binds it as `UInt(16)[M]`, the
  same type. Its values travel through a `Stream[UInt(16), 4]`, incremented.
- `tiles` travels as whole 2 x 2 blocks through a `Stream[int16[2, 2], 2]`:
  each stream element is one `int16[2, 2]` tile; the consumer doubles it.
Kernels bind the parameters in declaration order, read-only ones first.
"""

import allo
from allo.ir.types import int16, UInt, Stream
import allo.dataflow as df
import numpy as np

B = 2
M = 8
NT = 3


@df.region()
def top(
    codes: "UInt(B * 8)[M]",
    tiles: int16[NT, 2, 2],
    codes_out: UInt(16)[M],
    tiles_out: int16[NT, 2, 2],
):
    code_pipe: Stream[UInt(16), 4]
    tile_pipe: Stream[int16[2, 2], 2]

    @df.kernel(mapping=[1], args=[codes])
    def send_codes(local_codes: UInt(16)[M]):
        for i in range(M):
            code_pipe.put(local_codes[i] + 1)

    @df.kernel(mapping=[1], args=[tiles])
    def send_tiles(local_tiles: int16[NT, 2, 2]):
        for t in range(NT):
            tile: int16[2, 2] = 0
            for i, j in allo.grid(2, 2):
                tile[i, j] = local_tiles[t, i, j]
            tile_pipe.put(tile)

    @df.kernel(mapping=[1], args=[codes_out])
    def recv_codes(local_codes_out: UInt(16)[M]):
        for i in range(M):
            local_codes_out[i] = code_pipe.get()

    @df.kernel(mapping=[1], args=[tiles_out])
    def recv_tiles(local_tiles_out: int16[NT, 2, 2]):
        for t in range(NT):
            block: int16[2, 2] = tile_pipe.get()
            for i, j in allo.grid(2, 2):
                local_tiles_out[t, i, j] = block[i, j] * 2


def test_unsigned_streams():
    codes = np.random.randint(0, 60000, M).astype(np.uint16)
    tiles = np.random.randint(-1000, 1000, (NT, 2, 2)).astype(np.int16)
    codes_out = np.zeros(M, dtype=np.uint16)
    tiles_out = np.zeros((NT, 2, 2), dtype=np.int16)
    mod = df.build(top, target="simulator")
    mod(codes, tiles, codes_out, tiles_out)
    np.testing.assert_array_equal(codes_out, codes + 1)
    np.testing.assert_array_equal(tiles_out, tiles * 2)


if __name__ == "__main__":
    test_unsigned_streams()
