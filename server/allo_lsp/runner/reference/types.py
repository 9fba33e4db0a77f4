"""Allo's types for the reference executor, and how values are stored into them.

Arithmetic is computed in Allo's types, operation by operation (`typed.py`: the kernel is typed
once, as Allo's type inference types it, and each operator written as Allo's builder lowers it).
Here is what a store does (into a typed local, an array element, a stream):
- `intN`/`Int(N)`: two's-complement wrap to N bits; `uintN`/`UInt(N)`: modulo 2**N; a float is
  truncated toward zero first (FPToSI/FPToUI), and one the type does not hold then (3e10 into an
  int32, -1.0 into a uint8, NaN) is refused: LLVM's poison.
- `float16/32/64` round to that precision; `bfloat16` rounds a float32 to its upper 16 bits
  (round to nearest even).
- `Fixed(W, F)` / `UFixed(W, F)` (the documented rule, Vitis' defaults AP_TRN + AP_WRAP): the
  value is truncated toward minus infinity to a multiple of 2**-F, then wrapped to W bits
  (signed or unsigned); it is kept as a float64 holding that exact value.
- `bool` (Allo's `UInt(1)`): the low bit of the value (of a float, toward zero first); `index`: a
  Python int.
Arrays are numpy arrays (`AlloArray`, which remembers its Allo element type) in the smallest
numpy integer that holds the width (object arrays past 64 bits).
"""

from __future__ import annotations

import math
import re

import numpy as np
from allo_lsp.runner.reference.syntax import Unsupported


class ScalarType:
    def __init__(self, kind: str, bits: int, frac: int = 0, name: str = "") -> None:
        self.kind, self.bits, self.frac = kind, bits, frac
        self.name = name or f"{kind}{bits}"
        # numpy's own dtype for this type holds exactly its values (int32, float32, ...): an
        # element read from such an array needs no rounding or wrapping.
        self.whole = (kind in ("int", "uint") and bits in (8, 16, 32, 64)) or (kind == "float")
        self._numpy = self._numpy_dtype()

    def __repr__(self) -> str:
        return self.name

    def __eq__(self, other) -> bool:
        return isinstance(other, ScalarType) and (self.kind, self.bits, self.frac) == (
            other.kind,
            other.bits,
            other.frac,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.bits, self.frac))

    def __getitem__(self, dims) -> ArrayType:
        return ArrayType(self, dims if isinstance(dims, tuple) else (dims,))

    def __matmul__(self, other):  # `int32 @ Stateful`
        if other is STATEFUL:
            return Stateful(self)
        return NotImplemented

    @property
    def numpy(self):
        return self._numpy

    def _numpy_dtype(self):
        if self.kind in ("int", "uint"):
            for b in (8, 16, 32, 64):
                if self.bits <= b:
                    return np.dtype(f"{self.kind}{b}")
            return np.dtype(object)
        if self.kind == "float":
            return np.dtype(f"float{self.bits}")
        if self.kind == "bool":
            return np.dtype(bool)
        if self.kind == "index":
            return np.dtype(np.int64)
        return np.dtype(np.float64 if self.kind in ("fixed", "ufixed") else np.float32)

    def cast(self, value):
        """One value, as this type stores it."""
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value.item()
        if self.kind in ("int", "uint"):
            # A 1-bit integer is kept as 0/1: Allo types a literal by the other operand, so
            # `flag == 1` on an `int1` holding 1 is true there (the bit pattern is compared).
            converted = _to_int(value, self.kind, self.bits)
            return sized(self.bits)(_wrap(converted, self.bits, self.kind == "int" and self.bits > 1))
        if self.kind == "float":
            return self.numpy.type(value)
        if self.kind == "bfloat":
            return _bfloat16(float(value))
        if self.kind in ("fixed", "ufixed"):
            scaled = math.floor(float(value) * (1 << self.frac))
            return _wrap(scaled, self.bits, self.kind == "fixed") / (1 << self.frac)
        if self.kind == "bool":
            # Allo's `bool` is `UInt(1)`: a wider integer is truncated to its low bit (`TruncIOp`),
            # a float converted toward zero first (`FPToUIOp`): 2 and 0.5 store 0, not True.
            return bool(_to_int(value, "uint", 1) & 1)
        return _to_int(value)

    def host(self, value):
        """A caller's value as Allo's module call converts it into this type: as `cast`, except
        that a float into fixed point is scaled in float64 and truncated toward zero, then
        wrapped (`handle_overflow`: `np.fix`); inside a kernel a fixed value narrows by floor."""
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value.item()
        if self.kind in ("fixed", "ufixed"):
            scaled = math.trunc(float(value) * (1 << self.frac))
            return _wrap(scaled, self.bits, self.kind == "fixed") / (1 << self.frac)
        return self.cast(value)

    def plain_int(self) -> tuple[int, int] | None:
        """(mask, half) when this type stores a value as `((int(v) + half) & mask) - half` (half
        0: unsigned, `index` has mask -1), for kernels that never ask a value's width: the
        transform writes the store inline, and streams store through `plain_cast`."""
        if self.kind == "index":
            return -1, 0
        if self.kind not in ("int", "uint"):
            return None
        signed = self.kind == "int" and self.bits > 1  # an int1 keeps 0/1, as `cast` does
        return (1 << self.bits) - 1, (1 << (self.bits - 1)) if signed else 0

    def plain_cast(self):
        """`cast` giving a plain int (no width), or None when this type is not an integer."""
        wrap = self.plain_int()
        if wrap is None:
            return None
        mask, half = wrap
        # `int` truncates a float toward zero as `_to_int` does (an infinity or NaN raises too).
        if mask == -1:
            return int
        if half:
            return lambda value: ((int(value) + half) & mask) - half
        return lambda value: int(value) & mask

    def cast_array(self, values):
        """An array of values, as this type stores them (vectorised where numpy can)."""
        values = np.asarray(values)
        if self.kind in ("int", "uint") and self.bits <= 64 and values.dtype.kind in "iub":
            wide = values.astype(np.int64) if self.bits < 64 else values
            mask = (1 << self.bits) - 1
            wrapped = np.bitwise_and(wide, np.int64(mask) if self.bits < 64 else -1)
            if self.kind == "int" and 1 < self.bits < 64:
                wrapped = np.where(wrapped >= (1 << (self.bits - 1)), wrapped - (1 << self.bits), wrapped)
            return wrapped.astype(self.numpy)
        if self.kind == "float":
            return values.astype(self.numpy)
        flat = [self.cast(v) for v in values.reshape(-1).tolist()]
        return np.array(flat, dtype=self.numpy).reshape(values.shape)


class ArrayType:
    def __init__(self, elem: ScalarType, shape: tuple, layout=None) -> None:
        self.elem, self.shape, self.layout = elem, _dims(shape), layout

    def __repr__(self) -> str:
        return f"{self.elem}[{', '.join(map(str, self.shape))}]"

    def __matmul__(self, layout):  # `int32[M, N] @ [S(0), R]`, `float32[N] @ Stateful`
        if layout is STATEFUL:
            return Stateful(self)
        return ArrayType(self.elem, self.shape, layout)

    def __eq__(self, other) -> bool:
        return isinstance(other, ArrayType) and (self.elem, self.shape) == (other.elem, other.shape)

    def __hash__(self) -> int:
        return hash((self.elem, self.shape))


def _dims(dims) -> tuple:
    """Integer dimensions as ints; a symbolic one (a PEP 695 type parameter, `def f[T, N](A:
    float32[N, N])`, evaluated where the function is defined) is kept as it is, as Allo keeps it."""
    return tuple(int(d) if isinstance(d, (int, np.integer)) else d for d in dims)


class StreamType:
    def __init__(self, elem, depth: int, dims: tuple = ()) -> None:
        self.elem, self.depth, self.dims = elem, int(depth), _dims(dims)

    def __getitem__(self, dims) -> StreamType:  # an array of streams: `Stream[T, 4][P0, P1]`
        return StreamType(self.elem, self.depth, dims if isinstance(dims, tuple) else (dims,))


class _StatefulMarker:
    """`Stateful` (and the older spelling `stateful`) in `T @ Stateful`."""

    def __repr__(self) -> str:
        return "Stateful"

    def __call__(self, kind):  # the removed `stateful(T)` form
        return Stateful(kind)


STATEFUL = _StatefulMarker()


class Stateful:
    """A kernel local whose contents persist from one call of the built module to the next."""

    def __init__(self, kind) -> None:
        self.kind = kind


class _StreamFactory:
    def __getitem__(self, item) -> StreamType:
        elem, depth = item
        return StreamType(elem, depth)


class _ConstExprFactory:
    def __getitem__(self, item):
        return item


Stream = _StreamFactory()
ConstExpr = _ConstExprFactory()


class AlloArray(np.ndarray):
    """A numpy array that knows its Allo element type (views keep it)."""

    allo_type: ScalarType | None = None

    def __array_finalize__(self, obj) -> None:
        self.allo_type = getattr(obj, "allo_type", None)


def as_allo_array(array: np.ndarray, elem: ScalarType) -> AlloArray:
    view = np.asarray(array).view(AlloArray)
    view.allo_type = elem
    return view


def Int(bits):
    return ScalarType("int", int(bits), name=f"Int({bits})")


def UInt(bits):
    return ScalarType("uint", int(bits), name=f"UInt({bits})")


def Fixed(width, frac):
    return ScalarType("fixed", int(width), int(frac), f"Fixed({width}, {frac})")


def UFixed(width, frac):
    return ScalarType("ufixed", int(width), int(frac), f"UFixed({width}, {frac})")


float16, float32, float64 = (ScalarType("float", b, name=f"float{b}") for b in (16, 32, 64))
bfloat16 = ScalarType("bfloat", 16, name="bfloat16")
bool_ = ScalarType("bool", 1, name="bool")
index = ScalarType("index", 64, name="index")
_NAMED = re.compile(r"(u?)int(\d+)\Z")


def by_name(name: str) -> ScalarType | None:
    """`int32`, `uint8`, `float32`, `bool`, ... (the names `allo.ir.types` exports)."""
    m = _NAMED.match(name)
    if m:
        return ScalarType("uint" if m.group(1) else "int", int(m.group(2)), name=name)
    return {
        "float16": float16,
        "float32": float32,
        "float64": float64,
        "bfloat16": bfloat16,
        "bool": bool_,
        "index": index,
    }.get(name)


_PRINTED = re.compile(r"(u?)i(\d+)\Z|f(16|32|64)\Z|(u?fixed)\((\d+), ?(\d+)\)\Z")


def convert(obj):
    """Our type for an Allo type object of any origin: ours, the real Allo's or the stand-in's
    (by the name they print), so a design built for real Allo can run here too."""
    if isinstance(obj, (ScalarType, ArrayType, StreamType, Stateful)):
        return obj
    shape = getattr(obj, "shape", None)
    elem = getattr(obj, "elem", None) or getattr(obj, "dtype", None)
    if shape is not None and elem is not None and not isinstance(obj, np.ndarray):
        inner = convert(elem)
        return ArrayType(inner, tuple(shape)) if isinstance(inner, ScalarType) else None
    name = str(getattr(obj, "name", obj))
    found = by_name(name)
    if found is not None:
        return found
    m = _PRINTED.match(name) or re.fullmatch(r"(U?)(Int|Fixed)\((\d+)(?:, ?(\d+))?\)", name)
    if m is None:
        return None
    if m.re is _PRINTED:
        if m.group(2):
            return ScalarType("uint" if m.group(1) else "int", int(m.group(2)), name=name)
        if m.group(3):
            return by_name(f"float{m.group(3)}")
        return ScalarType(m.group(4), int(m.group(5)), int(m.group(6)), name=name)
    unsigned, family, a, b = m.groups()
    if family == "Int":
        return UInt(a) if unsigned else Int(a)
    return UFixed(a, b) if unsigned else Fixed(a, b)


_SIZED: dict[int, type] = {}


def sized(bits: int) -> type:
    """The int type of an integer value of `bits` bits: arithmetic on it is exact (it gives a
    plain int, as Allo widens integer arithmetic), and `.reverse()`/`.bitcast()` know its width."""
    kind = _SIZED.get(bits)
    if kind is None:
        kind = _SIZED[bits] = type(f"i{bits}", (int,), {"width": bits, "__slots__": ()})
    return kind


def _to_int(value, kind: str = "", bits: int = 0) -> int:
    """An integer's value; a float truncated toward zero (FPToSI/FPToUI), refused where the
    integer type `kind`/`bits` (when given) cannot hold it: LLVM's poison."""
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise_poison(value)
        converted = int(value)  # toward zero, as C converts
        if bits:
            lo, hi = (0, (1 << bits) - 1) if kind != "int" else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if bits == 1 and kind == "int":
                lo, hi = -1, 0
            if not lo <= converted <= hi:
                raise_poison(value, f"{'u' if kind != 'int' else ''}i{bits}")
        return converted
    return int(value)


def raise_poison(value, into: str = "") -> None:
    what = f"the integer type {into}" if into else "an integer"
    raise Unsupported(
        f"a conversion of {value} to {what}",
        None,
        f"a float {value} converted to {what} is poison in LLVM (FPToSI/FPToUI of a value the integer does "
        "not hold): Allo's result is undefined, so the reference executor gives none; test the value before "
        "the conversion",
    )


def _wrap(value: int, bits: int, signed: bool) -> int:
    value &= (1 << bits) - 1
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _bfloat16(value: float) -> float:
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(np.array(rounded, dtype=np.uint32).view(np.float32))
