"""`allo.customize` under the reference backend.

`allo.customize(fn)` returns a schedule; its primitives (`partition`, `pipeline`, `unroll`,
`reorder`, ...) are accepted and change nothing a functional run can see, and `.build()` (the
default target `llvm`) returns a callable that runs `fn` with Allo's storage semantics.
`df.customize(region)` gives the same kind of schedule for a region. `.module` (the MLIR) is
never made up: reading it is `unsupported`.
"""

from allo_lsp.runner.reference.region import compile_function
from allo_lsp.runner.reference.transform import Unsupported

PRIMITIVES = (
    "partition",
    "pipeline",
    "unroll",
    "reorder",
    "split",
    "tile",
    "fuse",
    "compute_at",
    "reuse_at",
    "buffer_at",
    "reshape",
    "parallel",
    "dataflow",
    "compose",
    "to",
    "relay",
    "outline",
    "bind",
    "inline",
    "unfold",
    "dtype",
    "layout",
)


class Schedule:
    def __init__(self, fn, region=False) -> None:
        self.fn, self._region = fn, region
        self.top_func_name = getattr(fn, "__name__", "top")

    def __getattr__(self, name):
        if name in PRIMITIVES:
            return lambda *args, **kwargs: None
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _buffers(self.fn):
            from allo.ir.utils import MockBuffer

            return MockBuffer(self.top_func_name, name)  # `s.partition(s.C, dim=1)`
        from allo.dataflow import _user_line

        raise Unsupported(f"Schedule.{name}", _user_line())

    @property
    def module(self):
        from allo.dataflow import _user_line

        raise Unsupported(".module (the MLIR) of a schedule", _user_line())

    def build(self, target="llvm", mode=None, project="top.prj", configs=None, wrap_io=True, **kwargs):
        if self._region:
            from allo import dataflow

            return dataflow.build(self.fn, target=target, mode=mode, project=project, configs=configs, wrap_io=wrap_io)
        if target == "llvm":
            return compile_function(self.fn)
        from allo.dataflow import HLS_TARGETS, ToolchainModule

        if target not in HLS_TARGETS:
            raise NotImplementedError(f"Target {target} is not supported")
        return ToolchainModule(target, mode)


def _buffers(fn) -> set:
    """The names a schedule can refer to as `s.X`: the function's parameters and locals."""
    code = getattr(fn, "__code__", None)
    return set(code.co_varnames) if code is not None else set()


def customize(fn, **_):
    return Schedule(fn)
