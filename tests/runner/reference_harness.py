"""Runs small designs on the reference executor in this process, as the runner would.

The executor's own `allo` (the shim) is put first on `sys.path` only while a design is loaded
and run, and every `allo` module is forgotten afterwards, so no other test sees it.
"""

import contextlib
import importlib.util
import itertools
import sys
import textwrap

from allo_lsp.runner.reference import SHIM_PATH

HEADER = """\
import allo
from allo.ir.types import int1, int8, int16, int32, uint8, uint32, float32, bfloat16, Int, UInt, Fixed, Stream, ConstExpr
import allo.dataflow as df
import numpy as np
"""
_counter = itertools.count()


@contextlib.contextmanager
def shim():
    sys.path.insert(0, SHIM_PATH)
    try:
        yield
    finally:
        sys.path.remove(SHIM_PATH)
        for name in [m for m in sys.modules if m == "allo" or m.startswith("allo.")]:
            del sys.modules[name]
        # The shim's finder that refuses missing `allo.*` modules goes with it.
        sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_Missing"]


def load(tmp_path, source: str):
    """The design module (HEADER + dedented source), loaded with the shim."""
    path = tmp_path / f"design_{next(_counter)}.py"
    path.write_text(HEADER + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def run(tmp_path, source: str, *arrays, region: str = "top"):
    """Build `region` for the simulator and call it on `arrays` (written in place)."""
    with shim():
        module, path = load(tmp_path, source)
        mod = module.df.build(getattr(module, region), target="simulator")
        mod(*arrays)
    return path


# 1,024 PEs in a ring of 32x32; each puts into its four FIFOs and gets from its left
# neighbour's: 4 stream arrays of 32x32 = 4,096 FIFOs.
MANY_PES = """
P = 32

@df.region()
def top(A: int32[P, P], B: int32[P, P]):
    s0: Stream[int32, 2][P, P]
    s1: Stream[int32, 2][P, P]
    s2: Stream[int32, 2][P, P]
    s3: Stream[int32, 2][P, P]

    @df.kernel(mapping=[P, P], args=[A, B])
    def pe(local_A: int32[P, P], local_B: int32[P, P]):
        i, j = df.get_pid()
        s0[i, j].put(local_A[i, j])
        s1[i, j].put(1)
        s2[i, j].put(2)
        s3[i, j].put(3)
        left = (j + P - 1) % P
        local_B[i, j] = s0[i, left].get() + s1[i, left].get() + s2[i, left].get() + s3[i, left].get()
"""
