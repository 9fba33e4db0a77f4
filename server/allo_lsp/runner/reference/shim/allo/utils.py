"""`allo.utils` under the reference backend: numpy helpers designs use for their inputs."""

import numpy as np


def get_np_pow2_type(bitwidth, signed=True):
    """The smallest numpy integer of 8, 16, 32 or 64 bits that holds `bitwidth` bits."""
    for bits in (8, 16, 32, 64):
        if bitwidth <= bits:
            return np.dtype(f"{'' if signed else 'u'}int{bits}").type
    raise RuntimeError("Unsupported bitwidth")


def get_np_struct_type(bitwidth):
    """A numpy structured dtype of ceil(bitwidth / 8) unsigned bytes (how Allo passes wide ints)."""
    n_bytes = -(-int(bitwidth) // 8)
    return np.dtype(
        {
            "names": [f"f{i}" for i in range(n_bytes)],
            "formats": ["u1"] * n_bytes,
            "offsets": list(range(n_bytes)),
            "itemsize": n_bytes,
        }
    )
