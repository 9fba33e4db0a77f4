"""`allo`, as user code sees it under the reference backend (the executor's implementation).

Kernel bodies never run through these names directly: the executor rewrites `allo.*` calls.
Code outside kernels (a test's golden computation) may call `allo.grid`, and `allo.customize`
runs a plain Allo function with Allo's storage semantics. An `allo.X` (or a module `allo.x`) the
executor does not have is `unsupported`, by name: never "allo is not importable".
"""

import importlib.abc
import os
import sys

from allo_lsp.runner.reference.library import grid
from allo_lsp.runner.reference.transform import Unsupported

from allo import dataflow  # noqa: F401
from allo.customize import customize  # noqa: F401
from allo.ir import types  # noqa: F401

reduction = grid


def _kernel_only(name):
    def call(*args, **kwargs):
        raise RuntimeError(f"allo.{name}() only means something inside a @df.kernel")

    return call


meta_if, meta_elif, meta_else, meta_for, get_pid = (
    _kernel_only(n) for n in ("meta_if", "meta_elif", "meta_else", "meta_for", "get_pid")
)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"allo.{name}", None, f"allo.{name} is not part of the reference executor")


class _Missing(importlib.abc.MetaPathFinder):
    """Last on `sys.meta_path`: an `allo.*` module nobody else found is refused by name."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("allo."):
            raise Unsupported(fullname, None, f"{fullname} is not part of the reference executor")
        return None


if not any(isinstance(f, _Missing) for f in sys.meta_path):
    sys.meta_path.append(_Missing())

# A design that starts Python again (a test re-running its own file in a subprocess) must find
# this same `allo` there: the shim and our package go on the inherited PYTHONPATH.
_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ours = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_here))))
_path = os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.environ.get("PYTHONPATH") else []
os.environ["PYTHONPATH"] = os.pathsep.join([p for p in (_here, _ours) if p not in _path] + _path)
