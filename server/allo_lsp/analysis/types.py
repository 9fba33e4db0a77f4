"""Allo's types as the analysis sees them: element types, arrays, streams.

Names follow Allo's (`allo.ir.types`): `int32`, `UInt(16)`, `Fixed(12, 4)`; the
printed names Allo uses in messages (`i32`, `ui16`, `fixed(12, 4)`), the MLIR types it compiles them
to, and the `itypes` character of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod

from allo_lsp.protocol.type_names import printed_type

_INT_NAME = re.compile(r"(u?)int(\d+)\Z")
_FLOATS = {"float16": 16, "float32": 32, "float64": 64}


@dataclass(frozen=True)
class DType:
    """A scalar element type. `spelling` keeps how the user wrote it (`UInt(16)` vs `uint16`)."""

    kind: str  # int, uint, float, bfloat, fixed, ufixed, index, bool
    bits: int
    frac: int = 0
    spelling: str = field(default="", compare=False)

    @property
    def printed(self) -> str:
        """The name Allo prints in its messages."""
        return printed_type(self.kind, self.bits, self.frac)

    @property
    def mlir(self) -> str:
        """MLIR element type. Allo's integers are signless in MLIR; `itypes` carries the sign."""
        if self.kind in ("int", "uint"):
            return f"i{self.bits}"
        if self.kind == "bool":
            return "i1"
        if self.kind == "fixed":
            return f"!allo.Fixed<{self.bits}, {self.frac}>"
        if self.kind == "ufixed":
            return f"!allo.UFixed<{self.bits}, {self.frac}>"
        return self.printed

    @property
    def numpy(self) -> str:
        """The numpy dtype arrays of this type are passed as (numpy has no bfloat16 or fixed
        point: Allo converts float arrays for those)."""
        if self.kind in ("int", "uint"):
            bits = next((b for b in (8, 16, 32, 64) if b >= self.bits), 64)
            return f"{self.kind}{bits}"
        if self.kind == "float":
            return f"float{self.bits}"
        if self.kind == "bool":
            return "bool"
        if self.kind == "index":
            return "int64"
        return "float32"

    @property
    def numpy_attr(self) -> str:
        """The `np.<name>` a user writes for `numpy`: `np.bool` is gone from numpy 1.24 to 1.26."""
        return "bool_" if self.kind == "bool" else self.numpy

    @property
    def itype(self) -> str:
        if self.kind in ("int", "fixed"):
            return "s"
        if self.kind in ("uint", "ufixed", "bool"):
            return "u"
        return "_"

    def __str__(self) -> str:
        return self.spelling or self.printed


def dtype_from_name(name: str) -> DType | None:
    """`int32`, `uint8`, `float32`, `bool`, ... as importable from `allo.ir.types`."""
    m = _INT_NAME.match(name)
    if m and 1 <= int(m.group(2)) <= 4096:
        return DType("uint" if m.group(1) else "int", int(m.group(2)), spelling=name)
    if name in _FLOATS:
        return DType("float", _FLOATS[name], spelling=name)
    if name == "bfloat16":
        return DType("bfloat", 16, spelling=name)
    if name == "bool":
        return DType("bool", 1, spelling=name)
    if name == "index":
        return DType("index", 64, spelling=name)
    return None


def dtype_from_constructor(ctor: str, args: list[int]) -> DType | None:
    """`Int(n)`, `UInt(n)`, `Fixed(w, f)`, `UFixed(w, f)` with already folded arguments."""
    shown = f"{ctor}({', '.join(map(str, args))})"
    if ctor in ("Int", "UInt") and len(args) == 1 and 1 <= args[0] <= 4096:
        return DType("int" if ctor == "Int" else "uint", args[0], spelling=shown)
    if ctor in ("Fixed", "UFixed") and len(args) == 2 and 0 <= args[1] <= args[0] <= 4096:
        return DType(ctor.lower(), args[0], args[1], spelling=shown)
    return None


TYPE_CONSTRUCTORS = ("Int", "UInt", "Fixed", "UFixed")

# A str is a type parameter of a generic region (`def inner[P0, P1](A: T[P0, P1])`);
# None: a dimension that does not fold to a constant here.
Dim = int | str | None


@dataclass(frozen=True)
class AlloType:
    """A (possibly array) Allo type. `dtype` None means the element type did not resolve."""

    dtype: DType | None
    shape: tuple[Dim, ...] = ()
    layout: str | None = None

    @property
    def is_scalar(self) -> bool:
        return not self.shape

    @property
    def resolved(self) -> str:
        base = str(self.dtype) if self.dtype else "?"
        text = base + (f"[{', '.join(_dim(d) for d in self.shape)}]" if self.shape else "")
        return f"{text} @ {self.layout}" if self.layout else text

    @property
    def printed(self) -> str:
        base = self.dtype.printed if self.dtype else "?"
        return base + (f"[{', '.join(_dim(d) for d in self.shape)}]" if self.shape else "")

    @property
    def element_mlir(self) -> str:
        return self.dtype.mlir if self.dtype else "?"

    @property
    def mlir(self) -> str:
        """As a function argument: a memref, 0-d for a scalar (`memref<i32>`), as Allo compiles a
        bare scalar region parameter."""
        if not self.shape:
            return f"memref<{self.element_mlir}>"
        return f"memref<{'x'.join(_dim(d) for d in self.shape)}x{self.element_mlir}>"

    @property
    def fully_resolved(self) -> bool:
        """Element type and every dimension known as numbers (a type parameter is not)."""
        return self.dtype is not None and all(isinstance(d, int) for d in self.shape)

    def element_count(self) -> int | None:
        if not all(isinstance(d, int) for d in self.shape):
            return None
        return prod(self.shape)  # type: ignore[arg-type]


def _dim(d: Dim) -> str:
    return "?" if d is None else str(d)


@dataclass(frozen=True)
class StreamType:
    """`Stream[T, depth]` or an array of streams `Stream[T, depth][P0, P1]`."""

    element: AlloType
    depth: Dim
    dims: tuple[Dim, ...] = ()

    @property
    def resolved(self) -> str:
        depth = _dim(self.depth)
        text = f"Stream[{self.element.resolved}, {depth}]"
        return text + (f"[{', '.join(_dim(d) for d in self.dims)}]" if self.dims else "")

    @property
    def mlir(self) -> str:
        element = self.element.mlir if self.element.shape else self.element.element_mlir
        return f"!allo.stream<{element}, {_dim(self.depth)}>"
