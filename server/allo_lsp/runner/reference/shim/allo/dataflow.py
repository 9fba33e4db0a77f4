"""`allo.dataflow` under the reference backend: `build(..., target="simulator")` runs designs on
the reference executor; other targets are refused clearly."""

from allo.memory import Layout  # noqa: F401

from allo_lsp.runner.reference import simulate


def region():
    def mark(fn):
        fn.__allo_region__ = True
        return fn

    return mark


def kernel(mapping=None, args=None):
    def mark(fn):
        return fn

    return mark


def get_pid():
    raise RuntimeError("df.get_pid() only means something inside a @df.kernel")


class _Module:
    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, *arrays):
        simulate(self.fn, list(arrays))


def build(fn, target="vitis_hls", mode=None, project=None, configs=None, wrap_io=True):
    if target != "simulator":
        raise RuntimeError(
            f'df.build(..., target="{target}") needs the Allo backend: the reference executor only '
            'simulates (target="simulator")'
        )
    return _Module(fn)


def customize(fn):
    raise RuntimeError("df.customize() (the MLIR) needs the Allo backend, not the reference executor")
