"""`allo.ir.types` under the reference backend: the executor's own types."""

from allo_lsp.runner.reference.types import (  # noqa: F401
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
from allo_lsp.runner.reference.types import bool_ as bool  # noqa: F401, A004


def __getattr__(name: str):
    found = by_name(name)
    if found is None:
        raise AttributeError(name)
    return found
