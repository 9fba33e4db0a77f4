"""Allo's types of expressions: the result type of every operator, and the MLIR operation and
casts Allo's builder lowers it to (read from Allo's source at a098603f).

Allo does not compute on exact numbers. Its type inference (`allo/ir/infer.py`) gives every
expression a type by the tables of `allo/ir/typing_rule.py`, and its builder
(`allo/ir/builder.py`) casts both operands to that type and emits one MLIR operation of it
(`build_general_binop`, `build_cast_op`, `build_UnaryOp`). This module is that contract, shared
by the analysis (hovers, build errors, pitfalls) and the reference executor (which computes in
these types): it imports nothing, so the executor can use it inside the user's interpreter.

A type is `Ty(kind, bits, frac)` with Allo's classes as kinds: `int`, `uint` (`bool` is
`UInt(1)`), `index`, `fixed`, `ufixed`, `float` (16, 32, 64) and `bfloat` (16). `index` is 32 bits
wide for the typing rules (`Index.__init__`) and 64 bits once lowered to LLVM.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.protocol.type_names import printed_type


@dataclass(frozen=True, slots=True)
class Ty:
    kind: str
    bits: int
    frac: int = 0

    @property
    def cls(self) -> str:
        """Allo's type class, which the typing tables are keyed on."""
        return "float" if self.kind == "bfloat" else self.kind

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint", "index")

    @property
    def signed(self) -> bool:
        """How the value is read: Allo's MLIR integers are signless, its `Int` is signed."""
        return self.kind in ("int", "index", "fixed")

    def __str__(self) -> str:
        return printed_type(self.kind, self.bits, self.frac)


def Int(bits: int) -> Ty:  # Allo's constructor names
    return Ty("int", bits)


def UInt(bits: int) -> Ty:
    return Ty("uint", bits)


def Fixed(bits: int, frac: int) -> Ty:
    return Ty("fixed", bits, frac)


def UFixed(bits: int, frac: int) -> Ty:
    return Ty("ufixed", bits, frac)


INDEX = Ty("index", 32)
INT32 = Int(32)
BOOL = UInt(1)
FLOAT16, BFLOAT16, FLOAT32, FLOAT64 = Ty("float", 16), Ty("bfloat", 16), Ty("float", 32), Ty("float", 64)


class TypingError(Exception):
    """An operation Allo's type inference or builder refuses: the build fails."""


def literal_type(value) -> Ty:
    """`visit_Constant`: an int literal is `int32`, a float literal `float32` (whatever its size)."""
    if isinstance(value, bool):
        return INT32  # Python's True is an int: Allo types it as one
    return INT32 if isinstance(value, int) else FLOAT32


# -- the typing tables (`typing_rule.py`) ------------------------------------------------------
# A rule is looked up by the operands' classes and applied to the operands as written. For a
# commutative rule Allo sorts the classes for the look-up (int, uint, index, fixed, ufixed, float:
# `sort_type_classes`) but still passes the operands in their own order (`TypingRule.__call__`),
# so `select(UInt(1), Int(8))` applies the (Int, UInt) formula to (UInt(1), Int(8)) and is
# `Int(9)`, not the `Int(8)` of the other order. Every rule below takes the operands `t1, t2` and
# the classes `a, b` of the table entry; integer types have a fraction of 0, as Allo's do.
_ORDER = ("int", "uint", "index", "fixed", "ufixed", "float")
_INTS = ("int", "uint", "index")
_UNSIGNED = ("uint", "index", "ufixed")


def _wider_float(t1: Ty, t2: Ty) -> Ty:
    return t1 if t1.bits >= t2.bits else t2


def _float_side(t1: Ty, t2: Ty, a: str, b: str) -> Ty:
    """Either side a float: the float (both floats: the wider, the first on a tie)."""
    if t1.cls == t2.cls == "float":
        return _wider_float(t1, t2)
    return t1 if t1.cls == "float" else t2


def _integers(t1: Ty, t2: Ty, a: str, b: str, carry: int) -> Ty:
    """The integer entries of `add_sub_rule` (`carry` 1) and `mod_rule`/`cmp_rule`/`select_rule`
    (`carry` 0): the wider operand, one more bit for an unsigned one beside a signed one."""
    if a == b == "index":
        return INDEX
    if "int" not in (a, b):  # unsigned and index: unsigned
        return UInt(max(t1.bits, t2.bits) + carry)
    w1 = t1.bits + (1 if a in _UNSIGNED else 0)
    w2 = t2.bits + (1 if b in _UNSIGNED else 0)
    return Int(max(w1, w2) + carry)


def _fixed_point(t1: Ty, t2: Ty, a: str, b: str, carry: int) -> Ty:
    """The fixed-point entries of the same rules: integer bits of each side (one more for an
    unsigned side beside a signed one), the larger fraction, `carry` bits more."""
    # An operand's fraction counts where its table entry's class is fixed point: a commutative
    # look-up can put an integer in that place (`select(Fixed(12, 4), Int(8))` is `Fixed(12, 0)`).
    signed = a in ("int", "fixed") or b in ("int", "fixed")
    f1 = t1.frac if a in ("fixed", "ufixed") else 0
    f2 = t2.frac if b in ("fixed", "ufixed") else 0
    i1 = t1.bits - f1 + (1 if signed and a in _UNSIGNED else 0)
    i2 = t2.bits - f2 + (1 if signed and b in _UNSIGNED else 0)
    frac = max(f1, f2)
    return (Fixed if signed else UFixed)(max(i1, i2) + frac + carry, frac)


def _widening(carry: int):
    def rule(t1: Ty, t2: Ty, a: str, b: str) -> Ty:
        if "float" in (a, b):
            return _float_side(t1, t2, a, b)
        if a in _INTS and b in _INTS:
            return _integers(t1, t2, a, b, carry)
        return _fixed_point(t1, t2, a, b, carry)

    return rule


_add_sub = _widening(1)  # `add_sub_rule`: one more bit for the carry
_mod_cmp_select = _widening(0)  # `mod_rule`, `cmp_rule`, `select_rule`: the same table


def _mul(t1: Ty, t2: Ty, a: str, b: str) -> Ty:  # `mul_rule`, commutative
    if "float" in (a, b):
        return _float_side(t1, t2, a, b)
    bits = t1.bits + t2.bits
    if a == b == "index":
        return INDEX
    unsigned = a in _UNSIGNED and b in _UNSIGNED
    if a in _INTS and b in _INTS:
        return UInt(bits) if unsigned else Int(bits)
    if a in _INTS or b in _INTS:
        return (UFixed if unsigned else Fixed)(bits, max(t1.frac, t2.frac))
    return (UFixed if unsigned else Fixed)(bits, t1.frac + t2.frac)


def _div(t1: Ty, t2: Ty, a: str, b: str) -> Ty:  # `div_rule`
    if "float" in (a, b):
        return _float_side(t1, t2, a, b)
    if a in _INTS and b in _INTS:
        # The left operand's type; an unsigned or index left over a signed right is signed.
        if a == "int" or b != "int":
            return INDEX if a == b == "index" else t1
        return Int(t1.bits)
    # A fixed-point operand, as the table writes it (the fraction can come out negative).
    kind = UFixed if a in _UNSIGNED and b in _UNSIGNED else Fixed
    if a in _INTS:  # an integer over a fixed-point value
        return kind(t1.bits + t2.bits + (1 if (a, b) == ("int", "ufixed") else 0), t1.bits - t2.frac)
    if b in _INTS:  # a fixed-point value over an integer
        extra = 1 if (a == "fixed" and b != "int") or (a == "ufixed" and b == "int") else 0
        return kind(t1.bits + t2.bits + extra, t2.bits + t1.frac)
    return kind(t1.bits + t2.bits + (1 if (a, b) == ("fixed", "ufixed") else 0), t2.bits - t2.frac + t1.frac)


def _shift(t1: Ty, t2: Ty, a: str, b: str) -> Ty:  # `shift_rule`: the left operand's type
    if a == "float" or b not in _INTS:
        raise _no_rule(t1, t2)
    return INDEX if a == "index" else t1


def _bitwise(t1: Ty, t2: Ty, a: str, b: str) -> Ty:  # `and_or_rule`, commutative: & | ^
    if a not in _INTS or b not in _INTS:
        raise _no_rule(t1, t2)
    if a == b == "index":
        return INDEX
    return Int(max(t1.bits, t2.bits)) if a == "int" else UInt(max(t1.bits, t2.bits))


def _pow(t1: Ty, t2: Ty, a: str, b: str) -> Ty:  # `pow_rule`, commutative: always a float
    if a == b == "float":
        return _wider_float(t1, t2)
    return FLOAT32 if t1.bits <= 32 else FLOAT64  # `select_float(t1, _)`: the first operand's width


def _no_rule(t1: Ty, t2: Ty) -> TypingError:
    return TypingError(f"Typing rule is not defined with input types ({t1}, {t2})")


_RULES = {
    "+": (_add_sub, False),
    "-": (_add_sub, False),
    "*": (_mul, True),
    "/": (_div, False),
    "//": (_div, False),
    "%": (_mod_cmp_select, False),
    "**": (_pow, True),
    "<<": (_shift, False),
    ">>": (_shift, False),
    "&": (_bitwise, True),
    "|": (_bitwise, True),
    "^": (_bitwise, True),
    "cmp": (_mod_cmp_select, False),
    "select": (_mod_cmp_select, True),
}


def result_type(op: str, t1: Ty, t2: Ty) -> Ty:
    """The type Allo gives `t1 op t2` (`visit_general_binop`; `visit_Compare` types a comparison by
    its operands' common type; `select` is `a if c else b`, `min` and `max`)."""
    rule, commutative = _RULES[op]
    a, b = t1.cls, t2.cls
    if commutative and _ORDER.index(a) > _ORDER.index(b):
        a, b = b, a
    return rule(t1, t2, a, b)


def unary_type(operand: Ty) -> Ty:
    """`-x`, `+x`, `~x` (`visit_UnaryOp`): an unsigned operand becomes signed of its width."""
    return Int(operand.bits) if operand.kind == "uint" else operand


# -- what the builder emits ------------------------------------------------------------------
# `build_general_binop`'s table: the operation by the result's class (`index` as `int`), None
# where the builder has none (the build fails).
_LOWERED = {
    "+": {"float": "addf", "int": "addi", "uint": "addi", "fixed": "add_fixed", "ufixed": "add_fixed"},
    "-": {"float": "subf", "int": "subi", "uint": "subi", "fixed": "sub_fixed", "ufixed": "sub_fixed"},
    "*": {"float": "mulf", "int": "muli", "uint": "muli", "fixed": "mul_fixed", "ufixed": "mul_fixed"},
    "/": {"float": "divf", "int": "divsi", "uint": "divui", "fixed": "div_fixed", "ufixed": "div_fixed"},
    "//": {"int": "floordivsi"},
    "%": {"float": "remf", "int": "remsi", "uint": "remui"},
    "**": {"float": "powf"},
    "<<": {"int": "shli", "uint": "shli", "fixed": "shl_fixed", "ufixed": "shl_fixed"},
    ">>": {"int": "shrsi", "uint": "shrui", "fixed": "shr_fixed", "ufixed": "shr_fixed"},
    "&": {"int": "andi", "uint": "andi"},
    "|": {"int": "ori", "uint": "ori"},
    "^": {"int": "xori", "uint": "xori"},
}


def lowered_op(op: str, result: Ty) -> str:
    """The MLIR operation Allo's builder emits for `op` in type `result`; `TypingError` where it
    has none (`//` on unsigned or floats, `%` on fixed point, `**` on integers)."""
    cls = "int" if result.cls == "index" else result.cls
    found = _LOWERED[op].get(cls)
    if found is None:
        raise TypingError(f"Allo cannot build `{op}` on {result} (build_general_binop has no such operation)")
    return found


def binary(op: str, t1: Ty, t2: Ty) -> tuple[Ty, str]:
    """`t1 op t2`: its type and the operation computing it (both operands cast to that type
    first, `build_BinOp`)."""
    result = result_type(op, t1, t2)
    return result, lowered_op(op, result)


def cast(src: Ty, dst: Ty, zero_extends: bool = False) -> str | None:
    """The conversion `build_cast_op` emits from `src` to `dst`, None when it emits none.

    `zero_extends`: the value comes from a bit get, a bit slice or a shift left (`GetIntBitOp`,
    `GetIntSliceOp`, `ShLIOp`), which widen with `extui` even when signed."""
    if src == dst:
        return None
    s, d = src.cls, dst.cls
    if "index" in (s, d) and s != d:
        if s in ("int", "uint") or d in ("int", "uint"):
            return "index_cast"
        if s == "float":
            return "fptoui_index"  # FPToUI to i32, then an index cast
        if d == "float":
            return "index_sitofp"  # an index cast to i32, then SIToFP
        return "index_fixed"
    if s in ("int", "uint") and d in ("int", "uint"):
        if src.bits > dst.bits:
            return "trunci"
        if src.bits == dst.bits:
            return None
        if zero_extends or src.bits == 1 or s == "uint":
            return "extui"
        return "extsi"
    if s in ("int", "uint") and d == "float":
        return "sitofp" if s == "int" else "uitofp"
    if s == "float" and d in ("int", "uint"):
        return "fptosi" if d == "int" else "fptoui"
    if s == d == "float":
        if src.bits == dst.bits:
            return None if src.kind == dst.kind else "truncf"
        return "truncf" if dst.bits < src.bits else "extf"
    return "fixed"  # the allo dialect's fixed-point conversions


def stream_cast(src: Ty, dst: Ty) -> str | None:
    """The conversion Allo's simulator adds where a put's value or a get's result differs in width
    from the FIFO's element type (`allo/backend/simulator.py`, `_process_function_streams`): it
    truncates a wider integer and widens a narrower one with `ExtSIOp` only when the MLIR type
    `is_signed`, which Allo's signless `iN` never is, so it zero-extends (`-15` as an `i16` put
    into an `int32` FIFO arrives as 65521). Any other mismatch (a float and an integer, two float
    widths) gets no conversion: its `memref.store` of the wrong type fails the module's
    verification, so the simulator build fails (ADF087 says so before the build); None here."""
    if src.cls in ("int", "uint") and dst.cls in ("int", "uint") and src.bits != dst.bits:
        return "trunci" if src.bits > dst.bits else "extui"
    return None


# -- a comparison's value --------------------------------------------------------------------
# `build_Compare` emits `arith.cmpi`/`cmpf`, an `i1`, but `visit_Compare` types the comparison by
# its operands' common type (`Int(32)` for two int32), and every cast `build_cast_op` emits from
# it is chosen by that type, applied to the `i1`. Two surprises follow: a comparison of signed
# values widened to a wider integer or a float is sign-extended from one bit (`ExtSIOp`,
# `SIToFPOp`): true is -1; and where the types agree no cast is emitted, so an `i1` meets an
# operation or a store of the wider type, which MLIR's verifier refuses.


def mlir_name(ty: Ty) -> str:
    """The MLIR type Allo builds for `ty` (`AlloType.build`): Int and UInt are both signless."""
    if ty.kind in ("int", "uint"):
        return f"i{ty.bits}"
    if ty.kind == "index":
        return "index"
    return str(ty)


def flag_cast(src: Ty, dst: Ty, consumer: str | None) -> str | None:
    """`build_cast_op` from a comparison typed `src` (an `i1` in MLIR) to `dst`, for `consumer`
    (`affine.store`, `arith.addi`, ...; None: one whose operand types are not judged): None when
    the cast it emits is valid on an `i1` (`extsi`/`extui` to a wider integer, `sitofp`/`uitofp`,
    `index_cast` to an index), else the verifier's message for what it emits."""
    s, d = src.cls, dst.cls
    if "fixed" in (s, d) or "ufixed" in (s, d):
        return None  # the allo dialect's conversions: not followed here
    if s in ("int", "uint"):
        if d == "float" or d == "index":
            return None
        if dst.bits > src.bits:
            return None
        if dst.bits < src.bits:
            return f"'arith.trunci' op operand type 'i1' and result type '{mlir_name(dst)}' are cast incompatible"
    elif s == "index":
        if d != "index":
            result = "i32" if d == "float" else mlir_name(dst)
            return f"'arith.index_cast' op operand type 'i1' and result type '{result}' are cast incompatible"
    elif s == "float":
        if d in ("int", "uint", "index"):
            op = "fptosi" if d == "int" else "fptoui"
            return f"'arith.{op}' op operand #0 must be floating-point-like, but got 'i1'"
        if dst.bits != src.bits:
            op = "extf" if dst.bits > src.bits else "truncf"
            return f"'arith.{op}' op operand #0 must be floating-point-like, but got 'i1'"
    # No cast: the `i1` itself meets the consumer, which wants `dst`.
    if consumer is None:
        return None
    if consumer in ("affine.store", "memref.store"):
        return {
            "affine.store": "'affine.store' op value to store must have the same type as memref element type",
            "memref.store": "'memref.store' op failed to verify that type of 'value' matches element type of 'memref'",
        }[consumer]
    if consumer == "arith.cmpi" or consumer == "arith.cmpf":
        return f"'{consumer}' op requires all operands to have the same type"
    return f"'{consumer}' op requires the same type for all operands and results"


def flag_value(src: Ty) -> str:
    """What a comparison's true is once `build_cast_op` widens it from its type `src`: `-1` from
    a signed integer of more than one bit (`ExtSIOp`/`SIToFPOp` of the `i1`), else `1`."""
    return "-1" if src.kind == "int" and src.bits > 1 else "1"
