"""`allo.ir.utils` under the reference backend: what tests import from it."""


class MockBuffer:
    """A named buffer of a function, as schedules refer to it (`MockBuffer("top", "A")`)."""

    def __init__(self, path, name, idx=None) -> None:
        self.path, self.name, self.idx = path, name, idx

    def __repr__(self) -> str:
        return f"MockBuffer({self.path}:{self.name})"


def get_global_vars(fn):
    return dict(getattr(fn, "__globals__", {}))
