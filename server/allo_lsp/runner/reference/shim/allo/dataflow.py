"""`allo.dataflow` under the reference backend.

`build(..., target="simulator")` runs designs on the reference executor. Every other target Allo
accepts builds too, after Allo's own checks, as Allo builds without its toolchain; calling such a
module, or reading its `.hls_code` / `.module`, ends the job as `unsupported` naming the target
(no HLS code or MLIR is ever made up). With functional emulation on (`emulate.py`), an `aie` or
`vitis_hls` csim module runs on the executor instead.
"""

import functools
import sys

import numpy as np
from allo_lsp.runner.reference import emulate
from allo_lsp.runner.reference.checks import vitis_output_order
from allo_lsp.runner.reference.region import run_region, top_directions
from allo_lsp.runner.reference.transform import BuildError, Unsupported
from allo_lsp.runner.reference.types import ArrayType, StreamType

from allo.memory import Layout  # noqa: F401

# Targets `df.build` accepts (allo/dataflow.py, and Schedule.build in allo/customize.py).
HLS_TARGETS = ("vhls", "vivado_hls", "vitis_hls", "pynq", "tapa", "ihls", "catapult", "xls", "xlscc")
TARGETS = ("simulator", "aie", "aie-mlir", "llvm", *HLS_TARGETS)
VITIS_MODES = ("csim", "csyn", "sw_emu", "hw_emu", "hw", "cosim", "debug")


def region():
    def mark(fn):
        fn.__allo_region__ = True
        return fn

    return mark


def kernel(mapping=None, args=None, **_):
    """Inside a region the executor reads kernels from source; a kernel outside any region is
    the removed API, kept only so such files import."""

    def mark(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            # Allo builds a directly called kernel for vitis_hls (csim) and runs that.
            ToolchainModule("vitis_hls", "csim")(*args, **kwargs)

        call.__allo_kernel__ = True
        call.mapping = mapping
        return call

    return mark


def get_pid():
    raise RuntimeError("df.get_pid() only means something inside a @df.kernel")


def pipe(dtype=None, shape=(), depth=2, src=None, dst=None):
    """The older stream declaration in a region body: `df.pipe(dtype=T, shape=(), depth=4)`."""
    if dtype is None:
        raise Unsupported("df.pipe(src=..., dst=...) inside a kernel (removed API)", _user_line())
    elem = ArrayType(dtype, tuple(shape)) if shape else dtype
    return StreamType(elem, depth)


def array(element, shape):
    """`df.array(df.pipe(...), shape=(P0, P1))`: an array of streams (older syntax)."""
    return StreamType(element.elem, element.depth, tuple(shape))


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"allo.dataflow.{name}", None, f"allo.dataflow.{name} is not part of the reference executor")


class SimulatorModule:
    """What `df.build(region, target="simulator")` returns: calls run the region."""

    def __init__(self, fn, label: str = "") -> None:
        self.fn = fn
        self.label = label
        self.state: dict = {}  # `@ Stateful` arrays, kept across calls

    def __call__(self, *arrays):
        if self.label:
            emulate.record(self.label)
        wide = [_wide_ints(a) for a in arrays]
        with emulate.running(self.label):
            run_region(
                self.fn,
                [a if w is None else w for a, w in zip(arrays, wide)],
                state=self.state,
                target=self.label or "simulator",
            )
        for array, ints in zip(arrays, wide):
            if ints is not None:
                _store_wide_ints(array, ints)


def _wide_ints(array):
    """A `get_np_struct_type` array (Allo's way to pass `UInt(128)` and wider: each element its
    bytes, little-endian) as Python ints, or None for another array."""
    dtype = getattr(array, "dtype", None)
    if dtype is None or not dtype.names or any(dtype.fields[n][0] != np.uint8 for n in dtype.names):
        return None
    raw = np.ascontiguousarray(array).view(np.uint8).reshape(*array.shape, dtype.itemsize)
    flat = [int.from_bytes(row.tobytes(), "little") for row in raw.reshape(-1, dtype.itemsize)]
    return np.array(flat, dtype=object).reshape(array.shape)


def _store_wide_ints(array, ints) -> None:
    """The region's results written back into the caller's struct array, byte by byte."""
    size = array.dtype.itemsize
    mask = (1 << (8 * size)) - 1
    data = b"".join((int(v) & mask).to_bytes(size, "little") for v in ints.reshape(-1))
    array[...] = np.frombuffer(data, dtype=array.dtype).reshape(array.shape)


class ToolchainModule:
    """A module built for a target whose toolchain is absent: it exists, it cannot run."""

    def __init__(self, target: str, mode) -> None:
        self._target, self._mode = target, mode

    def _refuse(self, what: str):
        mode = f', mode="{self._mode}"' if self._mode else ""
        module = f'a df.build(..., target="{self._target}"{mode}) module (needs the {self._target} toolchain)'
        raise Unsupported(f"{what} {module}" if what == "calling" else f"{what} of {module}", _user_line())

    def __call__(self, *args, **kwargs):
        self._refuse("calling")

    @property
    def hls_code(self):
        self._refuse(".hls_code")

    @property
    def module(self):
        self._refuse(".module")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        self._refuse(f".{name}")


def build(fn, target="vitis_hls", mode=None, project="top.prj", configs=None, wrap_io=True, **_):
    if target not in TARGETS:
        raise NotImplementedError(f"Target {target} is not supported")
    if target == "vitis_hls" and mode is not None and mode not in VITIS_MODES:
        raise NotImplementedError(f"Mode {mode} is not supported")
    if isinstance(fn, (list, tuple)) or getattr(fn, "__allo_kernel__", False):
        # The removed API: kernels built without a region (`df.build([producer, consumer])`).
        if target in ("simulator", "llvm"):
            raise Unsupported("df.build of @df.kernel functions outside a @df.region (removed API)", _user_line())
        return ToolchainModule(target, mode or ("csim" if target == "vitis_hls" else None))
    _checked(fn, target)
    if target == "vitis_hls" and getattr(fn, "__name__", "") == "kernel":
        print("kernel is a reserved keyword for vitis_hls")
        sys.exit(1)
    if target == "vitis_hls" and "num_output_args" not in (configs or {}):
        vitis_output_order(top_directions(fn))
    if target == "simulator":
        return SimulatorModule(fn)
    if target == "llvm":
        # Allo builds a region for "llvm" with `Schedule.build` (LLVMModule: another pass pipeline
        # than the simulator's LLVMOMPModule, no stream runtime); running it as the simulator would
        # answer for a module Allo does not make.
        raise Unsupported(
            'df.build(..., target="llvm") of a @df.region (Allo builds it as an LLVMModule)', _user_line()
        )
    if target in ("aie", "aie-mlir"):
        if emulate.enabled("aie"):
            return SimulatorModule(fn, "aie")
        return ToolchainModule(target, None)
    mode = mode or ("csim" if target == "vitis_hls" else None)
    if target in ("vitis_hls", "vhls") and mode == "csim" and emulate.enabled("csim"):
        return SimulatorModule(fn, "csim")
    return ToolchainModule(target, mode)


def _checked(fn, target: str | None = None) -> None:
    """Allo's build-time checks: on an error Allo prints the message and calls sys.exit(1)."""
    try:
        run_region(fn, None, target=target)
    except BuildError as exc:
        print(exc)
        sys.exit(1)


def customize(fn, **_):
    from allo.customize import Schedule

    _checked(fn)
    return Schedule(fn, region=True)


def _user_line():
    """The line of the user's code that called into the shim."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if "allo_lsp" not in name and "/shim/" not in name and not name.startswith("<"):
            return frame.f_lineno
        frame = frame.f_back
    return None
