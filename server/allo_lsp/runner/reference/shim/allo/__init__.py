"""`allo`, as user code sees it under the reference backend (the executor's implementation).

Kernel bodies never run through these names directly: the executor rewrites `allo.*` calls.
Code outside kernels (a test's golden computation) may call `allo.grid`.
"""

import itertools

from allo import dataflow  # noqa: F401
from allo.ir import types  # noqa: F401


def grid(*dims):
    return itertools.product(*(range(int(d)) for d in dims))


def _kernel_only(name):
    def call(*args, **kwargs):
        raise RuntimeError(f"allo.{name}() only means something inside a @df.kernel")

    return call


meta_if, meta_elif, meta_else, meta_for, get_pid = (_kernel_only(n) for n in ("meta_if", "meta_elif", "meta_else", "meta_for", "get_pid"))
