"""What the typing of a kernel (`kernel_types.py`) reads and gives, and the plain facts about a
kernel's `ast` it decides by: a typed value, the environment a body sees, a problem Allo would
report, and predicates (an `allo.*` call, a stream, a ConstExpr), shapes and linear forms, kept
apart from the typing itself so that it reads as Allo's `TypeInferer` does, one visitor."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from allo_lsp.protocol import build_errors as forms
from allo_lsp.protocol.constant_fold import _AST_BINARY, fold
from allo_lsp.protocol.typing_rules import Ty, TypingError, lowered_op, mlir_name

_BINOPS = _AST_BINARY  # the operator symbols of ast, one table (protocol/constant_fold.py)


@dataclass(frozen=True)
class Value:
    """A typed expression: its element type and its shape (`()` for a scalar)."""

    ty: Ty
    shape: tuple = ()


@dataclass
class Environment:
    """What a kernel body sees besides its own locals."""

    params: dict[str, Value] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)  # module-level: int, float, or a Ty
    streams: dict[str, Value] = field(default_factory=dict)  # name -> element type (arrays of streams too)
    annotation: Callable[[ast.expr], Value | None] = lambda node: None
    is_allo: Callable[[str], bool] = lambda name: name in ("allo", "df")
    # Names the body reads that nothing binds where Allo looks (a typo): `Unsupported Name`.
    unbound: frozenset[str] = frozenset()
    # Globals bound to a value `visit_Name` has no case for (an array, a list, a string: only an
    # int, a float or an Allo type reads as a value): `Unsupported global variable`. Known where
    # the values are (the executor); the analysis does not judge what it cannot evaluate.
    foreign: frozenset[str] = frozenset()
    arrays: frozenset[str] = frozenset()  # of `foreign`, the NumPy arrays: constant tensors when assigned
    array_shapes: dict[str, tuple] = field(default_factory=dict)  # of `arrays`, where the values are known
    # Plain functions the body calls -> their return type (`visit_Call`: the FunctionDef's dtype).
    functions: dict[str, Value] = field(default_factory=dict)
    # The kernel's PE grid where Allo builds one function per PE (`unroll=True`: not for AIE):
    # a meta branch body no PE takes is never typed there (`meta_branches.py`). None: unknown.
    mapping: tuple[int, ...] | None = None
    # The region's parameters: symbols of the scope its kernels are typed in (`ctx.scopes`).
    region_params: frozenset[str] = frozenset()
    # Globals that are modules: read as a value (`np.pi`, not the callee of `np.exp(x)`), one
    # is a global `visit_Name` has no case for.
    modules: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Problem:
    node: ast.AST
    message: str
    error: bool  # True: Allo's build stops; False: Allo warns and goes on
    # An MLIR verifier's refusal, not Allo's own error (an MLIRError out of `df.build`, no exit
    # status): the pass pipeline that meets it, "build" (`_build_top`'s canonicalize, at every
    # target) or "simulator" (`LLVMOMPModule`'s lowering, at target="simulator" only).
    pipeline: str | None = None
    kind: str | None = None  # what the analysis reports it as, where the message does not say


def known_shape(shape: tuple) -> bool:
    return all(type(d) is int for d in shape)


def no_cast(src: Ty, dst: Ty) -> bool:
    """`build_cast_op` emits nothing from `src` to `dst`: one type, or one width of integers or floats."""
    same_class = (src.kind in INTEGERS and dst.kind in INTEGERS) or src.cls == dst.cls == "float"
    return src == dst or (same_class and src.bits == dst.bits)


def one_bit(ty: Ty) -> bool:
    return ty.kind in INTEGERS and ty.bits == 1


def operation_of(op: ast.operator, result: Ty) -> str:
    """The MLIR operation `build_general_binop` emits for `op` in `result`, by name."""
    symbol = _BINOPS.get(type(op))
    try:
        name = lowered_op(symbol, result) if symbol is not None else "op"
    except TypingError:
        return "arith.op"
    return f"{'math' if name == 'powf' else 'allo' if name.endswith('_fixed') else 'arith'}.{name}"


# The MLIR verifiers' messages (`AffineStoreOp::verify`, `memref.store`'s type constraint).
VERIFIER = {
    "affine.store": "'affine.store' op value to store must have the same type as memref element type",
    "memref.store": forms.STORE_TYPE,
}
INTEGERS = ("int", "uint")  # MLIR's IntegerType (signless); `index` is not one


def is_allo_call(node: ast.expr, name: str, env: Environment) -> bool:
    """`node` is `allo.<name>(...)` (or `df.<name>`, any name `env` reads as Allo's)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and isinstance(node.func.value, ast.Name)
        and env.is_allo(node.func.value.id)
    )


def is_pid_call(node: ast.expr, env: Environment) -> bool:
    return is_allo_call(node, "get_pid", env)


def is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def is_constexpr(annotation: ast.expr) -> bool:
    """`ConstExpr[T]` (or `types.ConstExpr[T]`): a compile-time constant's declaration."""
    if not isinstance(annotation, ast.Subscript):
        return False
    head = annotation.value
    return (isinstance(head, ast.Name) and head.id == "ConstExpr") or (
        isinstance(head, ast.Attribute) and head.attr == "ConstExpr"
    )


def is_meta_call(node: ast.expr, env: Environment) -> bool:
    """`allo.meta_if(c)`, `allo.meta_elif(c)`, `allo.meta_for(n)`: arguments Allo evaluates in Python."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("meta_if", "meta_elif", "meta_for")
        and isinstance(node.func.value, ast.Name)
        and env.is_allo(node.func.value.id)
    )


def stream_name(node: ast.expr, env: Environment) -> str | None:
    """The stream `node` names: `s`, or an element of a stream array `fifo[i, j]`."""
    if isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) and node.id in env.streams else None


def linear(node: ast.expr | None) -> tuple[int, dict[str, int]] | None:
    """`node` as constant + sum of coefficient x name, every name a symbol, as Allo's
    `visit_symbol` reads it (sympy symbols); None for anything else."""
    if node is None:
        return 0, {}
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value, {}
    if isinstance(node, ast.Name):
        return 0, {node.id: 1}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = linear(node.operand)
        return (-inner[0], {k: -v for k, v in inner[1].items()}) if inner else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = linear(node.left), linear(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            if left[1] and right[1]:
                return None
            scale, other = (left[0], right) if not left[1] else (right[0], left)
            return other[0] * scale, {k: v * scale for k, v in other[1].items()}
        sign = 1 if isinstance(node.op, ast.Add) else -1
        names = dict(left[1])
        for k, v in right[1].items():
            names[k] = names.get(k, 0) + sign * v
        return left[0] + sign * right[0], names
    return None


def negated_array(operand: Value) -> str:
    memref = f"memref<{'x'.join(map(str, operand.shape))}x{mlir_name(operand.ty)}>"
    if operand.ty.cls == "float":
        return f"'arith.negf' op operand #0 must be floating-point-like, but got '{memref}'"
    return "'arith.subi' op requires the same type for all operands and results"


def slice_shape(indices: list[ast.expr], shape: tuple, constants: dict) -> tuple | None:
    """The shape `visit_Subscript` gives a slice of an array of `shape`: the dimensions not
    indexed, then each sliced one's `(upper - lower) // step`, its bounds evaluated in Python
    (`resolve_slice`). None where that is not NumPy's shape of the same slice (a slice of a
    leading dimension before unindexed ones, a step that does not divide), where a bound is known
    only at run time, or for more indices than dimensions: not followed here."""
    if len(indices) > len(shape) or not known_shape(shape):
        return None
    ints = {k: v for k, v in constants.items() if type(v) is int}
    allo, numpy = list(shape[len(indices) :]), []
    for dim, index in enumerate(indices):
        if not isinstance(index, ast.Slice):
            continue
        bounds = [None if b is None else fold(b, ints) for b in (index.lower, index.upper, index.step)]
        if any(b is not None and type(b) is not int for b in bounds):
            return None
        lower, upper, step = bounds
        if step is not None and step <= 0:
            return None
        size = ((shape[dim] if upper is None else upper) - (lower or 0)) // (step or 1)
        if size > 0:
            allo.append(size)
        numpy.append(len(range(*slice(lower, upper, step).indices(shape[dim]))))
    numpy += list(shape[len(indices) :])
    return tuple(allo) if allo == numpy else None


def difference(upper: ast.expr | None, lower: ast.expr | None) -> int | None:
    """`upper - lower` when it is a number whatever the symbols are, else None."""
    hi, lo = linear(upper), linear(lower)
    if hi is None or lo is None or upper is None:
        return None
    names = dict(hi[1])
    for k, v in lo[1].items():
        names[k] = names.get(k, 0) - v
    return hi[0] - lo[0] if not any(names.values()) else None
