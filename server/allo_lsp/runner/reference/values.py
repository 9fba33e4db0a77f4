"""Subscripts and value methods with Allo's meaning.

- An array is addressed as Allo's simulator addresses memory: a memref is one row-major buffer,
  so an index outside one dimension but inside the buffer (`A[0, 5]` of a 4x4 array) reads the
  element at that row-major offset (`A[1, 1]`); an offset outside the buffer is an error at its
  line (Python's negative indices would silently wrap: never used).
- An integer value is bit-accessed: `x[i]` is bit i, `x[lo:hi]` bits lo..hi-1 (`a[28:32]` of
  0xABCD0123 is 0xA); both can be assigned, which gives a new value that the caller stores back.
- `x.reverse()` reverses the bits of an integer over its width (`BitReverseOp`), the result of
  its type (an `Int` reads signed); `x.bitcast()` reinterprets the bits of an integer as the float
  of the same width, and of a float as a `UInt`. The width is the operand's Allo type where the
  typing knows it (`typed_method`: `(a + b).reverse()` of two int8 reverses 9 bits), else the
  width the value carries (`method`).
"""

from __future__ import annotations

import operator

import numpy as np
from allo_lsp.runner.reference.transform import Unsupported
from allo_lsp.runner.reference.types import sized

_FLOAT_OF_WIDTH = {16: np.float16, 32: np.float32, 64: np.float64}
_UINT_OF_WIDTH = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


class OutOfBuffer(IndexError):
    def __init__(self, index, shape, line) -> None:
        self.line = line
        hint = ""
        if any(isinstance(i, int) and i < 0 for i in (index if isinstance(index, tuple) else (index,))):
            # Allo casts a non-affine index with IndexCastOp, which sign-extends whatever the type.
            hint = (
                "; Allo casts an index to `index` sign-extended, so an unsigned index with its top bit "
                "set (a uint8 200 is -56) or a comparison's true (-1) is negative there"
            )
        super().__init__(f"index {index} is outside the buffer of shape {tuple(shape)} (line {line}){hint}")


def address(array: np.ndarray, index, line: int | None):
    """The numpy index Allo's row-major addressing of `array[index]` means."""
    shape = array.shape
    # The common case first, cheaply: plain ints within every dimension.
    if isinstance(index, int) and len(shape) == 1:
        if 0 <= index < shape[0]:
            return index
    elif type(index) is tuple and len(index) == len(shape):
        for i, d in zip(index, shape):
            if not (isinstance(i, int) and 0 <= i < d):
                break
        else:
            return index
    items = index if isinstance(index, tuple) else (index,)
    ints = []
    for item in items:
        if isinstance(item, slice) or item is Ellipsis or item is None:
            return _checked_partial(array, items, line)
        ints.append(operator.index(item))
    if len(ints) != array.ndim:
        return _checked_partial(array, items, line)
    if all(0 <= i < d for i, d in zip(ints, shape)):
        return tuple(ints)
    offset = 0
    for i, d in zip(ints, shape):
        offset = offset * d + i
    if not 0 <= offset < array.size:
        raise OutOfBuffer(tuple(ints), shape, line)
    return tuple(int(i) for i in np.unravel_index(offset, shape))


def _checked_partial(array: np.ndarray, items: tuple, line):
    """A slice or a partial index (`B[i]` of a 2-D array is row i): every integer in range."""
    dims = iter(array.shape)
    for item in items:
        dim = next(dims, None)
        if isinstance(item, slice) or item is None or item is Ellipsis or dim is None:
            continue
        i = operator.index(item)
        if not 0 <= i < dim:
            raise OutOfBuffer(items, array.shape, line)
    return items


def is_integer(value) -> bool:
    return isinstance(value, (int, np.integer, np.bool_))


def get_bits(value, index, line):
    if not is_integer(value):
        raise Unsupported(f"bit access on a {type(value).__name__} value", line)
    x = int(value)
    if isinstance(index, slice):
        lo, hi = _bounds(index, line)
        # A slice keeps its width, which `bitcast()` needs (`A[i][0:16].bitcast()` is a float16).
        return sized(hi - lo)((x >> lo) & ((1 << (hi - lo)) - 1))
    return sized(1)((x >> operator.index(index)) & 1)


def set_bits(value, index, new, line):
    """`value` with bit `index` (or bits lo..hi-1) replaced by the low bits of `new`."""
    if not is_integer(value):
        raise Unsupported(f"bit assignment on a {type(value).__name__} value", line)
    x, bits = int(value), int(new)
    if isinstance(index, slice):
        lo, hi = _bounds(index, line)
    else:
        lo = operator.index(index)
        hi = lo + 1
    mask = ((1 << (hi - lo)) - 1) << lo
    return (x & ~mask) | ((bits << lo) & mask)


def _bounds(index: slice, line) -> tuple[int, int]:
    if index.step is not None or index.start is None or index.stop is None:
        raise Unsupported("a bit slice without both bounds, or with a step", line)
    lo, hi = operator.index(index.start), operator.index(index.stop)
    if not 0 <= lo < hi:
        raise Unsupported(f"the bit slice [{lo}:{hi}]", line)
    return lo, hi


def typed_method(name: str, value, kind: str, bits: int, line):
    """`.reverse()` / `.bitcast()` of `value`, of Allo type `kind` of `bits` bits; the typing
    (`protocol/kernel_types.py`) has refused the rest: `reverse` of a non-integer, `bitcast` of an
    integer of no float's width."""
    if kind in ("int", "uint"):
        raw = int(value) & ((1 << bits) - 1)
        if name == "bitcast":
            return np.array(raw, dtype=_UINT_OF_WIDTH[bits]).view(_FLOAT_OF_WIDTH[bits])[()]
        reversed_bits = int(format(raw, f"0{bits}b")[::-1], 2)
        if kind == "int" and bits > 1 and reversed_bits >> (bits - 1):
            reversed_bits -= 1 << bits  # the reversed pattern read as the signed type it has
        return sized(bits)(reversed_bits)
    if kind == "float" and bits in _FLOAT_OF_WIDTH:
        return sized(bits)(int(np.array(value, dtype=_FLOAT_OF_WIDTH[bits]).view(_UINT_OF_WIDTH[bits])[()]))
    if kind == "bfloat":  # bfloat16 is the upper half of a float32 (held exactly: rounded when stored)
        return sized(16)(int(np.array(value, dtype=np.float32).view(np.uint32)[()]) >> 16)
    raise Unsupported(f".{name}() of a {kind} value", line)


def method(name: str, value, line):
    width = getattr(value, "width", None)
    if isinstance(value, np.integer):
        width = value.dtype.itemsize * 8
    if name == "reverse" and width is not None:
        x = int(value) & ((1 << width) - 1)
        return sized(width)(int(format(x, f"0{width}b")[::-1], 2))
    if name == "bitcast" and width in _FLOAT_OF_WIDTH:
        raw = np.array(int(value) & ((1 << width) - 1), dtype=_UINT_OF_WIDTH[width])
        return raw.view(_FLOAT_OF_WIDTH[width])[()]
    if name == "bitcast" and isinstance(value, np.floating):
        bits = value.dtype.itemsize * 8
        return sized(bits)(int(np.array(value).view(_UINT_OF_WIDTH[bits])[()]))
    if isinstance(value, (int, float, np.generic)):
        # A value whose width is not known (a Python literal, an untyped expression) has no
        # bits to reverse or reinterpret: refused, not guessed.
        raise Unsupported(f".{name}() of a {type(value).__name__} value of unknown width", line)
    return getattr(value, name)()
