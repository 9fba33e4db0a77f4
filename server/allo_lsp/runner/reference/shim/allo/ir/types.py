"""`allo.ir.types` under the reference backend: the executor's own types."""

from allo_lsp.runner.reference.transform import Unsupported
from allo_lsp.runner.reference.types import (  # noqa: F401
    STATEFUL,
    ConstExpr,
    Fixed,
    Int,
    Stream,
    UFixed,
    UInt,
    bfloat16,
    by_name,
    float16,
    float32,
    float64,
    index,
)
from allo_lsp.runner.reference.types import bool_ as bool  # noqa: F401

Stateful = STATEFUL
stateful = STATEFUL  # the spelling before 2026 (`T @ stateful`)


def __getattr__(name: str):
    found = by_name(name)
    if found is not None:
        return found
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"allo.ir.types.{name}", None, f"allo.ir.types.{name} is not part of the reference executor")
