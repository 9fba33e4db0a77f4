"""STAND-IN types (tests only): enough to evaluate region annotations and print MLIR types."""

import re


class _Scalar:
    def __init__(self, name: str, mlir: str, itype: str) -> None:
        self.name, self.mlir, self.itype = name, mlir, itype

    def __getitem__(self, shape):
        return _Array(self, shape if isinstance(shape, tuple) else (shape,))

    def __repr__(self) -> str:
        return self.name


class _Array:
    def __init__(self, elem: _Scalar, shape: tuple) -> None:
        self.elem, self.shape = elem, shape

    def __matmul__(self, layout):  # `int32[M, N] @ [S(0), R]`
        return self

    @property
    def mlir(self) -> str:
        return f"memref<{'x'.join(str(d) for d in self.shape)}x{self.elem.mlir}>"

    @property
    def itype(self) -> str:
        return self.elem.itype


def Int(bits):  # Allo's spelling (as UInt, Fixed, UFixed)
    return _Scalar(f"Int({bits})", f"i{bits}", "s")


def UInt(bits):
    return _Scalar(f"UInt({bits})", f"i{bits}", "u")


def Fixed(width, frac):
    return _Scalar(f"Fixed({width}, {frac})", f"!allo.Fixed<{width}, {frac}>", "s")


def UFixed(width, frac):
    return _Scalar(f"UFixed({width}, {frac})", f"!allo.UFixed<{width}, {frac}>", "u")


class _Subscriptable:
    def __getitem__(self, item):
        return self


Stream = ConstExpr = _Subscriptable()
float16, float32, float64 = (_Scalar(f"float{b}", f"f{b}", "_") for b in (16, 32, 64))
bfloat16 = _Scalar("bfloat16", "bf16", "_")
bool = _Scalar("bool", "i1", "_")  # Allo's name: the builtin is shadowed on purpose
index = _Scalar("index", "index", "_")


def __getattr__(name: str):
    m = re.fullmatch(r"(u?)int(\d+)", name)
    if m:
        return _Scalar(name, f"i{m.group(2)}", "u" if m.group(1) else "s")
    raise AttributeError(name)
