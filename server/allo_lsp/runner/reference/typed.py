"""A kernel's arithmetic in Allo's types: the code the transform writes for each operator.

Allo types every expression (`protocol/kernel_types.py`, as `allo/ir/infer.py`) and its builder
casts both operands to the result type and emits one MLIR operation of it (`build_BinOp`,
`build_cast_op`, `build_UnaryOp`; `protocol/typing_rules.py`). The kernel is typed once, before it
is rewritten; each typed operation is then written as Python that gives Allo's value:
- integers are exact Python ints, wrapped to the result's width only where the operands' ranges
  let it overflow (`a + b` of two int8 is `Int(9)`: never wrapped; `x << 3` always is);
- `/` is `divsi` (truncating, the quotient wrapped: MIN / -1) or `divui`, `%` is `remsi` (C's
  remainder: `-4 % 3 == -1`) or `remui`, `//` is `floordivsi`;
- a shift by an amount outside 0..width-1, a bit or bit slice at or past the width (Allo's
  LowerBitOps shifts by it), a float the target integer does not hold, an integer division or
  remainder by zero and a signed MIN / -1 are LLVM's poison or undefined behaviour: refused by
  name, no number is made up;
- an array index is an affine map where `build_indices` makes one (floor `%` and `/`), else cast
  to `index` with the sign-extending `IndexCastOp` (`index_cast`); `range`/`allo.grid` bounds too;
- a cast is the one `build_cast_op` emits: a signed value widens by sign extension, except the
  result of a bit get, a bit slice or a shift left, and a 1-bit value, which zero-extend (`ExtUI`);
  a float becomes an integer truncated toward zero (`FPToSI`/`FPToUI`), an integer a float by
  rounding (`SIToFP`/`UIToFP`);
- float32 arithmetic is numpy float32 per operation, float16 numpy float16, bfloat16 is rounded
  (from float32) after every operation; a float literal is a float32, an int literal an int32
  (of its low 32 bits: `3000000000` is -1294967296, as `MockConstant` builds it);
- a put into a stream of a wider integer type zero-extends (`stream_cast`: the simulator's
  `ExtUIOp`), so `-15` as an `Int(16)` put into a `Stream[int32]` arrives as 65521.
Fixed-point values are held exact as floats (up to 53 bits; wider arithmetic is refused): `+`,
`-`, `*` are exact in their widened result type, `/` is `lowerFixedDiv`'s (toward zero in the result
type), a float becomes fixed point toward zero (`lowerFloatToFixed`), a fixed value narrows by
floor where it is stored (`types.py`).
"""

from __future__ import annotations

import ast
import math
import types as types_

import numpy as np
from allo_lsp.protocol import typing_rules as rules
from allo_lsp.protocol.build_errors import free_names
from allo_lsp.protocol.constant_fold import fold
from allo_lsp.protocol.kernel_model import _BINOPS, VERIFIER, Environment, Value
from allo_lsp.protocol.kernel_types import KernelTypes
from allo_lsp.protocol.typing_rules import Ty
from allo_lsp.runner.reference.syntax import BuildError, Unsupported, _template, is_region
from allo_lsp.runner.reference.types import (
    ArrayType,
    ScalarType,
    Stateful,
    StreamType,
    _bfloat16,
    _wrap,
    raise_poison,
)

# Allo's functions that lower to the `math` dialect, which the simulator's pipeline cannot lower.
MATH = frozenset("exp log log2 log10 sqrt sin cos tan tanh power abs".split())


def to_ty(kind: ScalarType) -> Ty:
    if kind.kind == "bool":
        return rules.BOOL
    if kind.kind == "index":
        return rules.INDEX
    return Ty(kind.kind, kind.bits, kind.frac)


def value_of(kind) -> Value | None:
    """The typing module's Value for one of our evaluated annotations."""
    if isinstance(kind, Stateful):
        kind = kind.kind
    if isinstance(kind, ScalarType):
        return Value(to_ty(kind))
    if isinstance(kind, ArrayType):
        return Value(to_ty(kind.elem), kind.shape)
    return None


# Values a kernel may not read as a global (`visit_Name`): data, not an int, a float or an Allo
# type; a module, a function or a class is reached otherwise (a call, an attribute).
_FOREIGN = (np.ndarray, list, tuple, dict, set, frozenset, str, bytes, type(None))


def _is_foreign(value) -> bool:
    # A NumPy scalar is data too unless it is a Python int or float (np.float64 is a float,
    # np.int32 no int): `N = np.int32(8)` read in a kernel does not build.
    return isinstance(value, _FOREIGN) or (isinstance(value, np.generic) and not isinstance(value, (int, float)))


def kernel_types(
    fdef: ast.FunctionDef, ns: dict, arg_types: list, annotation, is_allo, streams: dict, mapping: tuple | None = None
) -> KernelTypes:
    """`fdef` typed as Allo types it; its build errors raised as Allo raises them. `mapping`: the
    PE grid when Allo builds each PE's function (its untaken meta branches are not typed)."""
    params = {a.arg: v for a, t in zip(fdef.args.args, arg_types) if (v := value_of(t)) is not None}
    constants = {
        k: v for k, v in ns.items() if isinstance(v, (int, float)) and not k.startswith("__") and k not in params
    }
    stream_values = {}
    for name, kind in streams.items():
        elem = value_of(kind.elem if isinstance(kind, StreamType) else kind)
        if elem is not None:
            stream_values[name] = elem

    def read(node):
        try:
            return value_of(annotation(node))
        except Unsupported:
            return None

    env = Environment(params=params, constants=constants, streams=stream_values, annotation=read, is_allo=is_allo)
    env.mapping = mapping
    free = free_names(fdef)
    env.unbound = frozenset(n for n in free if n not in ns)  # a typo: Allo's `Unsupported Name`
    env.foreign = frozenset(n for n in free if n in ns and n not in params and _is_foreign(ns[n]))
    env.arrays = frozenset(n for n in env.foreign if isinstance(ns[n], np.ndarray))
    env.array_shapes = {n: ns[n].shape for n in env.arrays}
    env.modules = frozenset(n for n in free if isinstance(ns.get(n), types_.ModuleType) and n not in params)
    called = helpers(fdef, ns)
    for name, fn in called.items():
        returned = signature(fn)[1]
        if returned is not None:
            env.functions[name] = returned
    types = KernelTypes(fdef, env)
    types.helpers = called
    _check_steps(fdef, constants, types.untaken)
    for problem in types.problems:
        if problem.error and problem.pipeline is None:
            raise BuildError(problem.message, getattr(problem.node, "lineno", None))
    # Allo's own errors stop it while it builds; the verifier's only when `_build_top` runs its
    # pass (which prints that line and the module, then raises).
    for problem in types.problems:
        if problem.pipeline == "build":
            print("Error: failed to run MLIR lower pipeline, printing module...")
            raise MLIRError(problem, ns.get("__file__"))
    return types


def helpers(fdef: ast.FunctionDef, ns: dict) -> dict:
    """The plain Python functions `fdef` calls by name, annotated as Allo functions are (a
    parameter or the result typed): Allo builds each as a function of those types."""
    found = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            fn = ns.get(node.func.id)
            if (
                isinstance(fn, types_.FunctionType)
                and not is_region(fn)
                and not getattr(fn, "__module__", "").startswith("allo")
                and any(v is not None for v in (*signature(fn)[0], signature(fn)[1]))
            ):
                found[node.func.id] = fn
    return found


def signature(fn) -> tuple[list, Value | None]:
    """A plain function's parameters' and result's types, as Values (None where not typed)."""
    from allo_lsp.runner.reference.types import convert

    try:
        code = fn.__code__
        notes = dict(fn.__annotations__)
    except AttributeError:
        return [], None

    def value(note):
        # A string (`from __future__ import annotations`) is not evaluated here: untyped.
        return value_of(convert(note)) if note is not None and not isinstance(note, str) else None

    names = code.co_varnames[: code.co_argcount]
    return [value(notes.get(n)) for n in names], value(notes.get("return"))


def _check_steps(fdef: ast.FunctionDef, constants: dict, untaken: set[int]) -> None:
    """`for i in range(a, b, step)` with a constant step of 0 or less: Allo's builder stops
    (`build_single_for`: an `scf.for` is refused with this message, an `affine.for` takes only a
    positive step)."""
    ints = {k: v for k, v in constants.items() if type(v) is int}
    for node in ast.walk(fdef):
        call = node.iter if isinstance(node, ast.For) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range":
            if node.lineno in untaken:
                continue  # a meta branch no PE takes: never built
            if len(call.args) == 3 and not any(isinstance(a, ast.Starred) for a in call.args):
                step = fold(call.args[2], ints)
                if type(step) is int and step <= 0:
                    raise BuildError(f"Step in for loop range should be positive, got: {step}", node.lineno)


class MLIRError(Exception):
    """What Allo's MLIR bindings raise when a pass pipeline meets a module the verifier refuses
    (`allo._mlir.ir.MLIRError`): out of `df.build` as it is, no exit status. The location is the
    statement's, as Allo's builder gives it (`Location.file`), or unknown for an operation the
    simulator wrote."""

    def __init__(self, problem, file: str | None) -> None:
        node = problem.node
        where = "unknown"
        if problem.pipeline == "build":
            where = f'"{file}":{node.lineno}:{node.col_offset}' if file else f"{node.lineno}:{node.col_offset}"
        super().__init__(f"Failure while executing pass pipeline:\nerror: {where}: {problem.message}")
        self.line = node.lineno


def check_simulator(fdef: ast.FunctionDef, types: KernelTypes, is_allo) -> None:
    """Allo's simulator lowers with a pipeline of its own (`LLVMOMPModule.__init__`) that has no
    `math` dialect (`allo.exp`, and `**`, which is `math.powf`: `pow_rule` is a float) and no
    fixed-point lowering: such a kernel does not build for it. Before that
    pipeline the simulator writes each put into its FIFO, and a put its conversion leaves of
    another type than the FIFO's is refused by the verifier."""
    for problem in types.problems:
        if problem.pipeline == "simulator":
            raise MLIRError(problem, None)  # the first pass of `LLVMOMPModule`'s lowering
    built = [n for n in ast.walk(fdef) if getattr(n, "lineno", None) not in types.untaken]  # taken by a PE
    for node in built:
        # A comparison put is its `i1`: `_process_function_streams` converts it only into an
        # integer FIFO (ExtUIOp); into a float FIFO its `memref.store` fails the verifier.
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "put":
            base = node.func.value
            while isinstance(base, ast.Subscript):
                base = base.value
            elem = types.env.streams.get(base.id) if isinstance(base, ast.Name) else None
            if elem is not None and not elem.shape and elem.ty.cls not in ("int", "uint") and len(node.args) == 1:
                if types._is_i1(node.args[0]) is True:
                    raise MLIRError(_Problem(node.args[0], VERIFIER["memref.store"], "simulator"), None)
    declared = {**types.env.params, **types.env.streams}
    for name, value in declared.items():
        if value.ty.kind in ("fixed", "ufixed"):
            raise BuildError(
                f"'{name}' is {value.ty} and cannot be built for target=\"simulator\": the simulator's pass "
                "pipeline (LLVMOMPModule) has no fixed-point lowering",
                fdef.lineno,
            )
    for node in built:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and types.of(node) is not None:
            raise BuildError(
                f'`**` (line {node.lineno}) is math.powf, which cannot be built for target="simulator": the '
                "simulator's pass pipeline (LLVMOMPModule) has no lowering of the math dialect",
                node.lineno,
            )
        call = node.func if isinstance(node, ast.Call) else None
        if (
            isinstance(call, ast.Attribute)
            and call.attr in MATH
            and isinstance(call.value, ast.Name)
            and is_allo(call.value.id)
        ):
            raise BuildError(
                f'allo.{call.attr} (line {node.lineno}) cannot be built for target="simulator": the simulator\'s '
                "pass pipeline (LLVMOMPModule) has no lowering of the math dialect",
                node.lineno,
            )
        typed = types.of(node)
        if typed is not None and typed.ty.kind in ("fixed", "ufixed"):
            raise BuildError(
                f'{typed.ty} (line {getattr(node, "lineno", "?")}) cannot be built for target="simulator": the '
                "simulator's pass pipeline (LLVMOMPModule) has no fixed-point lowering",
                getattr(node, "lineno", None),
            )


class AieTypes:
    """The types under AIE emulation: bfloat16 arithmetic in float32, as AIE's vector units
    accumulate it (bfloat16 values are rounded where stored, as before)."""

    def __init__(self, types: KernelTypes) -> None:
        self.env, self.locals, self.problems, self._types = types.env, types.locals, types.problems, types

    def __getattr__(self, name: str):  # everything else is the kernel's typing
        return getattr(self._types, name)

    def of(self, node):
        found = self._types.of(node)
        if found is not None and found.ty.kind == "bfloat":
            return Value(rules.FLOAT32, found.shape)
        return found


# -- value ranges and casts ---------------------------------------------------------------------


def _range(t: Ty) -> tuple[int, int] | None:
    """The integers a value of type `t` holds (an `index` as the int32 the typing rules make it;
    a 1-bit value is 0 or 1, as the executor keeps it), None for a non-integer."""
    if t.kind == "index":
        return -(1 << 31), (1 << 31) - 1
    if t.kind not in ("int", "uint"):
        return None
    if t.kind == "uint" or t.bits == 1:
        return 0, (1 << t.bits) - 1
    return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1


def _within(inner: tuple[int, int] | None, t: Ty) -> bool:
    if t.kind == "index":
        return True  # index arithmetic is exact: 64 bits once lowered
    outer = _range(t)
    return inner is not None and outer is not None and outer[0] <= inner[0] and inner[1] <= outer[1]


def wrap(expr: ast.expr, t: Ty) -> ast.expr:
    """`expr` (an int) wrapped to `t`'s width, two's complement."""
    if t.kind == "index":
        return expr
    mask = (1 << t.bits) - 1
    if t.kind == "uint" or t.bits == 1:
        return _template(f"(E) & {mask}", E=expr)
    half = 1 << (t.bits - 1)
    return _template(f"(((E) + {half}) & {mask}) - {half}", E=expr)


_FLOAT_OF = {("float", 16): "__ref_f16", ("float", 32): "__ref_f32", ("float", 64): "__ref_f64"}


def _float_name(t: Ty) -> str:
    return "__ref_bf16" if t.kind == "bfloat" else _FLOAT_OF[("float", t.bits)]


def zero_extends(node: ast.expr, types: KernelTypes) -> bool:
    """`build_cast_op` widens this value with ExtUI: a shift left (`ShLIOp`), a bit get or a bit
    slice of an integer (`GetIntBitOp`, `GetIntSliceOp`), not an array element."""
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.LShift)
    if isinstance(node, ast.Subscript):
        base = types.of(node.value)
        return base is not None and not base.shape
    return False


def _literal(expr: ast.expr, src: Ty) -> ast.expr:
    """An int literal as Allo materialises it: an `int32` (`visit_Constant`) built by
    `MockConstant.result` as `IntegerAttr.get(i32, value)`, whose APInt keeps the low 32 bits, so
    `3000000000` is -1294967296 wherever it is widened (`x: int64 = 3000000000`, `a + 3000000000`
    of an int64)."""
    if isinstance(expr, ast.Constant) and type(expr.value) is int and src == rules.INT32:
        if not -(1 << 63) <= expr.value < 1 << 63:
            # IntegerAttr.get takes an int64_t: the bindings refuse a wider Python int.
            raise Unsupported(
                f"the int literal {expr.value}",
                getattr(expr, "lineno", None),
                f"the int literal {expr.value} does not fit the int64 Allo's MockConstant passes to "
                "IntegerAttr.get: Allo's build fails, so the reference executor gives no value",
            )
        wrapped = ((expr.value + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
        if wrapped != expr.value:
            return ast.copy_location(ast.Constant(wrapped), expr)
    return expr


def _float_to_int(expr: ast.expr, dst: Ty) -> ast.expr:
    """A float converted to the integer type `dst` (`FPToSIOp`/`FPToUIOp`, truncating toward
    zero). LLVM's fptosi/fptoui give poison where the truncated value does not fit `dst` (NaN,
    the infinities, 3e10 into int32, -1.0 into a uint8), so `__ref_fptoi` refuses those by name.
    An index is `FPToUIOp` to i32 and then `IndexCastOp`, which sign-extends (`build_cast_op`)."""
    if dst.kind == "index":
        return wrap(_template("__ref_fptoi(E, 0, 4294967295, 'i32')", E=expr), rules.INT32)
    if dst.kind == "uint" or dst.bits == 1:
        lo, hi = (0, (1 << dst.bits) - 1) if dst.kind == "uint" else (-1, 0)
    else:
        lo, hi = -(1 << (dst.bits - 1)), (1 << (dst.bits - 1)) - 1
    converted = _template(f"__ref_fptoi(E, {lo}, {hi}, '{dst}')", E=expr)
    # An `Int(1)` is held as 0/1: fptosi's -1 (all ones) is 1 there.
    return _template("(E) & 1", E=converted) if dst.bits == 1 else converted


def _float_to_fixed(expr: ast.expr, src: Ty, dst: Ty) -> ast.expr:
    """`FloatToFixedOp` as Allo lowers it (`lowerFloatToFixed`, FixedPointToInteger.cpp): the
    float times 2**frac in its own type (`mulf`), then `FPToSIOp`/`FPToUIOp` into an integer of the
    fixed type's width: toward zero (-1.03 into Fixed(16, 8) is -263/256), poison where it does not
    fit (`__ref_fptoi` refuses it). The value is held exact, as fixed-point values are here."""
    scale = 1 << dst.frac
    lo, hi = _range(rules.UInt(dst.bits) if dst.kind == "ufixed" else rules.Int(dst.bits))
    product = _template(f"{_float_name(src)}((E) * {scale})", E=expr)
    return _template(f"__ref_fptoi(P, {lo}, {hi}, '{dst}') / {scale}", P=product)


def _wide_int(expr: ast.expr, src: Ty, dst: Ty) -> ast.expr:
    """An integer of more than 53 bits about to become a float32/float16 (`SIToFPOp`/`UIToFPOp`:
    one rounding, to nearest even): rounded to the float's significand here, since numpy's float32
    of a Python int rounds through a double first (2**60 + 2**36 + 1 would round twice, to 2**60)."""
    if src.cls in ("int", "uint") and src.bits > 53 and dst.kind == "float" and dst.bits < 64:
        return _template(f"__ref_iround(E, {24 if dst.bits == 32 else 11})", E=expr)
    return expr


def _flag(expr: ast.expr, src: Ty, dst: Ty) -> ast.expr:
    """A comparison's value (a Python bool here, an `i1` in MLIR) widened from its Allo type
    `src` to a wider integer or a float: `ExtSIOp`/`SIToFPOp` of the `i1` make true -1
    (`typing_rules.flag_value`); the casts that do not apply to an `i1` the typing refuses."""
    if isinstance(expr, ast.Compare) and rules.flag_value(src) == "-1" and dst.cls in ("int", "uint", "float"):
        if dst.cls == "float" or dst.bits > src.bits:
            return _template("-(E)", E=expr)
    return expr


def cast(expr: ast.expr, src: Ty, dst: Ty, zext: bool = False) -> ast.expr:
    """`expr` of type `src` as `build_cast_op` casts it to `dst`."""
    expr = _literal(expr, src)
    if src == dst:
        return expr
    expr = _flag(expr, src, dst)
    s, d = src.cls, dst.cls
    if d == "float":
        if src.kind == "int" and src.bits == 1:
            expr = _template("-(E)", E=expr)  # SIToFPOp reads an `Int(1)` (held 0/1) signed: 1 is -1.0
        if s in ("int", "uint", "index", "float", "fixed", "ufixed"):
            return _template(f"{_float_name(dst)}(E)", E=_wide_int(expr, src, dst))
        return expr
    if d in ("int", "uint", "index"):
        if s == "float":
            return _float_to_int(expr, dst)
        if s in ("fixed", "ufixed"):
            return wrap(_template("__ref_floor(E)", E=expr), dst)
        if zext and src.kind == "int" and 1 < src.bits < dst.bits:
            expr = _template(f"(E) & {(1 << src.bits) - 1}", E=expr)
            return expr if _within((0, (1 << src.bits) - 1), dst) else wrap(expr, dst)
        if d == "index" or _within(_range(src), dst):
            return expr
        return wrap(expr, dst)
    if s == "float":
        return _float_to_fixed(expr, src, dst)
    return expr  # fixed point from fixed point or an integer: stored as before (`ScalarType.cast`)


def store_cast(expr: ast.expr, src: Ty, dst: Ty, zext: bool) -> ast.expr:
    """`expr` before a store that casts by value (`ScalarType.cast`): only a zero extension and a
    comparison's sign extension from one bit and an int literal's 32 bits differ."""
    expr = _flag(_literal(expr, src), src, dst)
    if src.cls == "float" and dst.cls in ("int", "uint", "index"):
        return _float_to_int(expr, dst)
    if src.cls == "float" and dst.cls in ("fixed", "ufixed"):
        return _float_to_fixed(expr, src, dst)
    if src.kind == "int" and src.bits == 1 and dst.cls == "float":
        return _template("-(E)", E=expr)  # SIToFPOp of an `Int(1)`: 1 is -1.0
    if dst.cls == "float":
        return _wide_int(expr, src, dst)
    if zext and src.kind == "int" and dst.cls in ("int", "uint") and 1 < src.bits < dst.bits:
        return _template(f"(E) & {(1 << src.bits) - 1}", E=expr)
    return expr


def index_cast(expr: ast.expr, src: Ty, i1: bool, node: ast.expr) -> ast.expr:
    """A non-affine array index of type `src` cast to `index` (`build_indices`: `build_cast_op`
    to `Index()`). `IndexCastOp` sign-extends whatever Allo's type says: a `uint8` 200 is -56, a
    comparison's true (an `i1`, whatever its Allo type) is -1 (outside the array); a float is
    `FPToUIOp` to i32 first. Where no cast applies to a comparison's `i1` (two loop indices
    compared: no cast at all; a float comparison: `FPToUIOp` of an `i1`), the verifier refuses the
    module."""
    if i1:
        if src.kind == "index":
            message = "'memref.load' op operand #1 must be variadic of index, but got 'i1'"
            raise MLIRError(_Problem(node, message), None)
        if src.cls == "float":
            raise MLIRError(_Problem(node, rules.flag_cast(src, rules.INDEX, None)), None)
        return _template("-(E)", E=expr)
    if src.kind == "index" or src.cls in ("fixed", "ufixed"):
        return expr
    if src.cls == "float":
        return _float_to_int(expr, rules.INDEX)
    if src.bits == 1:
        return _template("-(E)", E=expr)  # an i1 (held 0/1) sign-extended
    if src.kind == "uint" or src.bits > 64:
        return wrap(expr, rules.Int(min(src.bits, 64)))
    return expr


def check_call(node: ast.Call, params: list, types: KernelTypes) -> None:
    """A call of a plain function passes each argument as it is built (`build_Call`: no cast):
    one of another MLIR type than its parameter's fails `func.call`'s verifier."""
    for k, (arg, param) in enumerate(zip(node.args, params)):
        given = types.of(arg)
        if param is None or given is None:
            continue
        got = "i1" if types._is_i1(arg) is True else rules.mlir_name(given.ty)
        want = rules.mlir_name(param.ty)
        if given.shape != param.shape or got != want:
            if given.shape or param.shape:
                got = f"memref<{'x'.join(map(str, given.shape))}x{got}>" if given.shape else got
                want = f"memref<{'x'.join(map(str, param.shape))}x{want}>" if param.shape else want
            message = f"'func.call' op operand type mismatch: expected operand type '{want}', but provided '{got}' for operand number {k}"
            raise MLIRError(_Problem(node, message), None)


class _Problem:
    """A build error found while the kernel is written (the verifier's, at the statement)."""

    def __init__(self, node: ast.AST, message: str, pipeline: str = "build") -> None:
        self.node, self.message, self.pipeline = node, message, pipeline


def put_cast(expr: ast.expr, src: Ty, dst: Ty) -> ast.expr:
    """A put's value as the simulator converts it (`typing_rules.stream_cast`): zero-extended."""
    expr = _literal(expr, src)
    if rules.stream_cast(src, dst) == "extui" and src.kind == "int" and src.bits > 1:
        return _template(f"(E) & {(1 << src.bits) - 1}", E=expr)
    return expr


# -- operations ---------------------------------------------------------------------------------


def _interval(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    return None


def binary(op: str, left: ast.expr, right: ast.expr, lt: Ty, rt: Ty, res: Ty, zl: bool, zr: bool, line: int):
    """`left op right` computed as Allo computes it in `res`, or None (not an operation of ours)."""
    if any(t.cls in ("fixed", "ufixed") and t.bits > 53 for t in (lt, rt, res)):
        # A fixed-point value is held as a float here, exact up to 53 bits only.
        raise Unsupported(f"fixed-point arithmetic of {res} (wider than 53 bits)", line)
    if res.cls in ("fixed", "ufixed") and op == "/":
        signed = res.kind == "fixed"
        return _template(f"__ref_fixed_div(A, B, {res.bits}, {res.frac}, {signed}, '{res}', {line})", A=left, B=right)
    if res.cls in ("fixed", "ufixed") or lt.cls in ("fixed", "ufixed") or rt.cls in ("fixed", "ufixed"):
        return None  # exact (the result type holds it), rounded where stored (`types.py`)
    a, b = cast(left, lt, res, zl), cast(right, rt, res, zr)
    if res.cls == "float":
        return _float_binary(op, a, b, res)
    if op in ("+", "-", "*"):
        expr = _template(f"(A) {op} (B)", A=a, B=b)
        ra, rb = _operand_range(lt, res, zl), _operand_range(rt, res, zr)
        bounds = _interval(op, ra, rb) if ra and rb else None
        return expr if _within(bounds, res) else wrap(expr, res)
    if op in ("&", "|", "^"):
        return _template(f"(A) {op} (B)", A=a, B=b)  # both already in `res`: so is the result
    signed = res.kind in ("int", "index") and not (res.kind == "int" and res.bits == 1)
    bits = 64 if res.kind == "index" else res.bits
    # Division by zero and a signed MIN / -1 are undefined in LLVM (sdiv/udiv/srem/urem; x86's
    # idiv traps): the helpers refuse them by name, so no quotient needs wrapping.
    if op in ("/", "//", "%"):
        helper = {"/": "__ref_divs", "//": "__ref_floordivs", "%": "__ref_rems"}[op] if signed else None
        if helper is None:
            helper = "__ref_divu" if op == "/" else "__ref_remu"  # `//` on unsigned does not build
            return _template(f"{helper}(A, B, '{res}', {line})", A=a, B=b)
        return _template(f"{helper}(A, B, {-(1 << (bits - 1))}, '{res}', {line})", A=a, B=b)
    if op == "<<":
        return wrap(_template(f"__ref_shl(A, B, {bits}, '{res}', {line})", A=a, B=b), res)
    if op == ">>":
        return _template(f"__ref_shr(A, B, {bits}, '{res}', {line})", A=a, B=b)
    return None


def elementwise(op: str, lt: Ty, rt: Ty, res: Ty, line: int) -> ast.Lambda | None:
    """`lambda __x, __y: __x op __y` of two elements in Allo's types: an operator on arrays (or an
    array and a scalar), which `build_BinOp` casts to `res` and `build_general_binop` builds as a
    linalg op of that type, or `allo.add`/`sub`/`mul`/`div` (`res` the first argument's type).
    The element operation is the scalar one, except that linalg's `div` of integers is `divsi`
    whatever their class (MLIR's `_binary_div`): unsigned operands are divided as signed bits."""
    x, y = ast.Name("__x", ast.Load()), ast.Name("__y", ast.Load())
    if op == "/" and res.kind == "uint" and res.bits > 1:
        a, b = _signed(cast(x, lt, res), res.bits), _signed(cast(y, rt, res), res.bits)
        low = -(1 << (res.bits - 1))
        body = wrap(_template(f"__ref_divs(A, B, {low}, '{res}', {line})", A=a, B=b), res)
    else:
        body = binary(op, x, y, lt, rt, res, False, False, line)
    if body is None:
        return None
    params = ast.arguments(
        posonlyargs=[], args=[ast.arg("__x"), ast.arg("__y")], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    return ast.Lambda(params, body)


def _operand_range(t: Ty, res: Ty, zext: bool) -> tuple[int, int] | None:
    if zext and t.kind == "int" and 1 < t.bits < res.bits:
        return 0, (1 << t.bits) - 1
    own = _range(t)
    return own if _within(own, res) else _range(res)


def _float_binary(op: str, a: ast.expr, b: ast.expr, res: Ty) -> ast.expr | None:
    if op in ("+", "-", "*", "/"):
        expr = _template(f"(A) {op} (B)", A=a, B=b)
    elif op == "%":
        expr = _template("__ref_fmod(A, B)", A=a, B=b)  # remf: C's fmod, not Python's %
    elif op == "**":
        expr = _template("(A) ** (B)", A=a, B=b)
    else:
        return None
    # float32/float16 operands are numpy scalars, which compute in their own precision; a
    # bfloat16 value is a Python float, rounded after each operation as LLVM's truncf does.
    if res.kind == "bfloat" or res.bits == 64:
        return _template(f"{_float_name(res)}(E)", E=expr)
    return _template(f"{_float_name(res)}(E)", E=expr) if op in ("%", "**") else expr


def compare(op: ast.cmpop, left, right, lt: Ty, rt: Ty, zl: bool, zr: bool):
    """A comparison in its operands' common type (`visit_Compare`). `build_Compare` picks the
    predicate by the MLIR type's name, and a signless `iN` starts with "i": an ordering of
    integers is signed (`slt`, `sgt`, ...) even in an unsigned common type, so `UInt(8)` 200 > 100
    compares -56 with 100 (false)."""
    try:
        common = rules.result_type("cmp", lt, rt)
    except rules.TypingError:
        return None
    if common.cls in ("fixed", "ufixed"):
        return None
    a, b = cast(left, lt, common, zl), cast(right, rt, common, zr)
    if (
        isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
        and common.kind in ("int", "uint")
        and (common.kind == "uint" or common.bits == 1)
    ):
        a, b = _signed(a, common.bits), _signed(b, common.bits)
    if isinstance(op, ast.NotEq) and common.cls == "float":
        # `!=` of floats is `cmpf one` (ATTR_MAP's predicate 6: ordered and unequal), false when
        # either is NaN; Python's != is true there. (`==` is `oeq`, as Python's.)
        return _template("__ref_one(A, B)", A=a, B=b)
    return ast.Compare(a, [op], [b])


def _signed(expr: ast.expr, bits: int) -> ast.expr:
    """An integer of `bits` bits (held non-negative) read as the signed value of its bits."""
    if bits == 1:
        return _template("-((E) & 1)", E=expr)
    return wrap(expr, rules.Int(bits))


def unary(op: ast.unaryop, operand: ast.expr, src: Ty, res: Ty, zext: bool):
    if res.cls in ("fixed", "ufixed") or isinstance(op, ast.Not):
        return None
    value = cast(operand, src, res, zext)
    if isinstance(op, ast.USub):
        negated = _template("-(E)", E=value)
        return negated if res.cls == "float" else wrap(negated, res)
    return value  # `+x`, and `~x`, which Allo's build_UnaryOp returns unchanged


def symbol(op: ast.operator) -> str | None:
    return _BINOPS.get(type(op))


# -- what the generated code calls --------------------------------------------------------------


def _undefined(what: str, ty: str, line: int) -> Unsupported:
    return Unsupported(
        what,
        line,
        f"{what} of {ty} values (line {line}) is undefined behaviour in LLVM (sdiv/udiv/srem/urem; on x86 "
        "the division traps): Allo's result is undefined, so the reference executor gives none; test the "
        "divisor first",
    )


def _checked(a: int, b: int, low: int, ty: str, line: int, what: str = "division") -> None:
    if b == 0:
        raise _undefined(f"a {what} by zero", ty, line)
    if b == -1 and a == low:
        raise _undefined(f"a {what} of {low} by -1", ty, line)


def _divs(a: int, b: int, low: int, ty: str, line: int) -> int:
    """`arith.divsi`: the quotient truncated toward zero."""
    if b == 0 or b == -1:
        _checked(a, b, low, ty, line)
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _fixed_div(a, b, bits: int, frac: int, signed: bool, ty: str, line: int) -> float:
    """`DivFixedOp` of the result type `ty` (`lowerFixedDiv`, FixedPointToInteger.cpp): both
    operands cast to it (a narrower fraction by floor), the dividend shifted left by `frac` in
    twice the width, `divsi`/`divui` (toward zero), truncated back to `bits`."""
    scale = 1 << frac
    lhs, rhs = (_wrap(math.floor(v * scale), bits, signed) for v in (a, b))
    if rhs == 0:
        raise _undefined("a fixed-point division by zero", ty, line)
    q = abs(lhs * scale) // abs(rhs)
    q = -q if (lhs < 0) != (rhs < 0) else q
    return _wrap(q, bits, signed) / scale


def _floordivs(a: int, b: int, low: int, ty: str, line: int) -> int:
    """`arith.floordivsi`: the quotient rounded toward minus infinity (lowered to divsi)."""
    if b == 0 or b == -1:
        _checked(a, b, low, ty, line)
    return a // b


def _rems(a: int, b: int, low: int, ty: str, line: int) -> int:
    """`arith.remsi`: the remainder has the dividend's sign (C's %)."""
    if b == 0 or b == -1:
        _checked(a, b, low, ty, line, "remainder")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _divu(a: int, b: int, ty: str, line: int) -> int:
    """`arith.divui`."""
    if b == 0:
        raise _undefined("a division by zero", ty, line)
    return a // b


def _remu(a: int, b: int, ty: str, line: int) -> int:
    """`arith.remui`."""
    if b == 0:
        raise _undefined("a remainder by zero", ty, line)
    return a % b


def _shift_amount(b: int, bits: int, ty: str, line: int) -> None:
    if not 0 <= b < bits:
        raise Unsupported(
            f"a shift by {b} of a {ty} value",
            line,
            f"a shift by {b} of a {ty} value (line {line}) is poison in LLVM (the amount is not below the "
            f"width, {bits}): Allo's result is undefined, so the reference executor gives none; shift a wider "
            "value (a typed local of the width you need)",
        )


def _shl(a: int, b: int, bits: int, ty: str, line: int) -> int:
    _shift_amount(b, bits, ty, line)
    return a << b


def _shr(a: int, b: int, bits: int, ty: str, line: int) -> int:
    _shift_amount(b, bits, ty, line)
    return a >> b


def _affine_divisor(b, line: int) -> None:
    if b.__class__ is not int or b <= 0:
        raise Unsupported(
            f"an affine index divided by {b}",
            line,
            f"an array index of loop variables and constants divided by {b} (line {line}): MLIR's affine "
            "maps divide only by a positive constant, so Allo's result is not known; the reference executor "
            "gives none",
        )


def _adiv(a: int, b: int, line: int) -> int:
    """`floordiv` of an affine map (`build_affine_expr` makes `/` and `//` so)."""
    _affine_divisor(b, line)
    return a // b


def _amod(a: int, b: int, line: int) -> int:
    """`mod` of an affine map: never negative (`A[(i - 1) % 4]` at i = 0 is A[3])."""
    _affine_divisor(b, line)
    return a % b


def _bit_poison(what: str, ty: str, line: int) -> Unsupported:
    return Unsupported(
        what,
        line,
        f"{what} of a {ty} value (line {line}) is poison in LLVM: Allo's LowerBitOps shifts by the bit "
        "position in the value's width, and a position at or past the width gives no value, so the "
        "reference executor gives none",
    )


def _bit(index: int, width: int, ty: str, line: int) -> int:
    """The bit position `x[index]` reads or sets: cast to the value's width (`IndexCastOp`),
    then a shift by it (`ShRSIOp`, `ShLIOp`), poison at or past the width."""
    position = index & ((1 << width) - 1)
    if position >= width:
        raise _bit_poison(f"the bit {index}", ty, line)
    return position


def _bits(lower: int, upper: int, width: int, ty: str, line: int) -> slice:
    """The bits `x[lower:upper]` reads or sets (`GetIntSliceOp`: shifts by width - 1 - (upper -
    1) and by `lower` in the value's width; `SetIntSliceOp`: a bit set per position)."""
    mask = (1 << width) - 1
    low, high = lower & mask, (upper - 1) & mask
    if low >= width or ((width - 1 - high) & mask) >= width:
        raise _bit_poison(f"the bit slice [{lower}:{upper}]", ty, line)
    return slice(low, high + 1)


def _iround(value, digits: int) -> int:
    """`value` rounded to `digits` significant bits, ties to even (exact in a double after)."""
    value = int(value)
    size = abs(value).bit_length()
    if size <= digits:
        return value
    shift = size - digits
    quotient, rest = divmod(abs(value), 1 << shift)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and quotient & 1):
        quotient += 1
    return (quotient << shift) * (1 if value >= 0 else -1)


def _fmin(a, b):
    """`arith.minimumf` (LLVM's llvm.minimum): NaN if either is, -0.0 below 0.0."""
    if a != a:
        return a
    if b != b or b < a or (b == a and math.copysign(1.0, b) < 0):
        return b
    return a


def _fmax(a, b):
    """`arith.maximumf` (LLVM's llvm.maximum): NaN if either is, 0.0 above -0.0."""
    if a != a:
        return a
    if b != b or b > a or (b == a and math.copysign(1.0, b) > 0):
        return b
    return a


def _one(a, b) -> bool:
    return a == a and b == b and a != b  # a NaN is the one value unequal to itself


def _fptoi(value, lo: int, hi: int, ty: str) -> int:
    """A float become an integer of type `ty` holding `lo..hi` (`FPToSIOp`/`FPToUIOp`: toward
    zero). A value no integer of `ty` holds (NaN, an infinity, 3e10 into an int32, -1.0 into a
    uint8) is LLVM's poison, so no number is made up for it."""
    if value.__class__ is not int and not math.isfinite(value):  # an int may exceed a float's range
        raise_poison(value)
    converted = int(value)
    if not lo <= converted <= hi:
        raise_poison(value, ty)
    return converted


def _bf16(value) -> float:
    return _bfloat16(float(np.float32(value)))


def _floor(value) -> int:
    return int(np.floor(value))


HELPERS = {
    "__ref_divs": _divs,
    "__ref_fixed_div": _fixed_div,
    "__ref_rems": _rems,
    "__ref_floordivs": _floordivs,
    "__ref_divu": _divu,
    "__ref_adiv": _adiv,
    "__ref_fmin": _fmin,
    "__ref_iround": _iround,
    "__ref_bit": _bit,
    "__ref_bits": _bits,
    "__ref_fmax": _fmax,
    "__ref_amod": _amod,
    "__ref_remu": _remu,
    "__ref_shl": _shl,
    "__ref_shr": _shr,
    "__ref_fmod": np.fmod,
    "__ref_f16": np.float16,
    "__ref_f32": np.float32,
    "__ref_f64": np.float64,
    "__ref_bf16": _bf16,
    "__ref_floor": _floor,
    "__ref_fptoi": _fptoi,
    "__ref_one": _one,
}
