"""What transformed kernels call (`__ref.*`): typed stores, `allo.grid`, `get_pid`, Allo's
library functions, and sub-regions."""

from __future__ import annotations

import itertools

import numpy as np

from allo_lsp.runner.reference.transform import Unsupported
from allo_lsp.runner.reference.types import ArrayType, ScalarType, as_allo_array


def _relu(x):
    return np.maximum(x, 0)


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


# Allo's library calls with a numpy meaning (results take the destination's type when stored).
LIBRARY = {
    "matmul": np.matmul, "bmm": np.matmul, "add": np.add, "sub": np.subtract, "mul": np.multiply,
    "div": np.divide, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "tanh": np.tanh,
    "relu": _relu, "softmax": _softmax, "transpose": np.transpose, "copy": np.copy,
    "max": np.max, "min": np.min, "sum": np.sum,
}


class Runtime:
    def __init__(self, sched, table: list, run_region) -> None:
        self.sched = sched
        self.table = table  # the kernel's annotations, evaluated once
        self.run_region = run_region

    def declare(self, index: int, value):
        kind = self.table[index]
        if isinstance(kind, ArrayType):
            data = np.broadcast_to(np.asarray(value), kind.shape)
            return as_allo_array(kind.elem.cast_array(data).copy(), kind.elem)
        return kind.cast(value) if isinstance(kind, ScalarType) else value

    def cast(self, index: int, value):
        kind = self.table[index]
        if isinstance(kind, ArrayType):
            return as_allo_array(kind.elem.cast_array(value), kind.elem)
        return kind.cast(value) if isinstance(kind, ScalarType) else value

    def store_for(self, array, value):
        """`value` as `array`'s elements store it (one element, or a slice's worth)."""
        elem = getattr(array, "allo_type", None)
        if elem is None:
            return value
        if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value):
            return elem.cast_array(value)
        return elem.cast(value)

    def allo(self, name: str, line: int):
        if name == "grid":
            return lambda *dims: itertools.product(*(range(int(d)) for d in dims))
        if name == "get_pid":
            return self._pid
        if name in LIBRARY:
            return LIBRARY[name]
        raise Unsupported(f"allo.{name}", line)

    def _pid(self):
        pid = self.sched.local.pid
        return pid[0] if len(pid) == 1 else pid

    def region(self, fn, generic):
        return lambda *arrays: self.run_region(fn, list(arrays), generic)
