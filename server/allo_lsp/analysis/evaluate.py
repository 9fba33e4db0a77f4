"""Folding constants and types the way Allo resolves them from source.

Allo reads a region's source and resolves `M`, `Ty`, `P0 = M + 2` from module globals, from the
enclosing function's assignments and from closures. `Scope` records those bindings by line;
`Evaluator` folds an expression to an int, a type, a tuple, or `UNKNOWN` (never raises, never runs
user code: only literals, arithmetic and Allo's type constructors are understood).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from allo_lsp.analysis.types import (
    TYPE_CONSTRUCTORS,
    AlloType,
    DType,
    StreamType,
    dtype_from_constructor,
    dtype_from_name,
)


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

# Guards so that folding `2 ** 10 ** 10` in a half-typed file cannot hang the server.
_MAX_INT = 1 << 64
_MAX_STRING = 512


@dataclass(frozen=True)
class Symbol:
    """A name Allo gives a meaning to (`Stream`, `ConstExpr`, `S`, ...) or an imported module."""

    qualname: str


STREAM = Symbol("allo.ir.types.Stream")
CONSTEXPR = Symbol("allo.ir.types.ConstExpr")
ALLO_NAMES = {
    "Stream": STREAM,
    "ConstExpr": CONSTEXPR,
    "S": Symbol("Layout.Shard"),
    "R": Symbol("Layout.Replicate"),
    "Layout": Symbol("allo.memory.Layout"),
}


@dataclass(frozen=True)
class RegionRef:
    """A name bound to a `@df.region()` function of this file."""

    region: Any  # model.Region


@dataclass(frozen=True)
class FunctionRef:
    """A name bound to a plain function of this file (a helper a kernel may call)."""

    node: cst.FunctionDef
    scope: Scope


@dataclass(frozen=True)
class ModuleRef:
    """A name bound to `df.build(region, ...)`'s result."""

    build: Any  # model.Build


@dataclass(frozen=True)
class TypeParam:
    """A type parameter of a generic region (`def inner[P0, P1](...)`): a dimension written with
    it stays symbolic (`float32[P0, P1]`), bound when a kernel instantiates `inner[2, 2]`."""

    name: str


@dataclass(frozen=True)
class ConstExprType:
    dtype: DType | None


@dataclass
class _Binding:
    line: int
    node: cst.BaseExpression | None  # None: bound to something not foldable (a parameter...)
    path: tuple[int, ...] = ()  # index into a tuple value (`M, N = 16, 16`)
    value: Any = None  # precomputed (imports)


@dataclass
class Scope:
    """Bindings of one Python scope, in source order."""

    parent: Scope | None = None
    start_line: int = 0  # where the scope's `def` is, to look outward "as of" that point
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)

    def bind(self, name: str, line: int, node=None, path=(), value=None) -> None:
        binding = _Binding(line, node, path, value)
        self.bindings.setdefault(name, []).append(binding)
        if self.journal is not None:
            self.journal.append((name, binding))

    def bind_unknown(self, name: str, line: int) -> None:
        self.bind(name, line, value=UNKNOWN)

    def names(self) -> set[str]:
        out = set(self.bindings)
        if self.parent:
            out |= self.parent.names()
        return out

    # Set on the module scope while one definition is extracted: every name it resolves at
    # module level, so that its extraction can be reused while those names mean the same.
    recorder: list | None = None
    # Set on the module scope while one definition is extracted: the bindings it adds, so
    # that they are found without a pass over every binding of the module.
    journal: list | None = None

    def find(self, name: str, line: int) -> tuple[_Binding, Scope] | None:
        scope: Scope | None = self
        while scope is not None:
            found = scope.bindings.get(name)
            if scope.parent is None and scope.recorder is not None:
                scope.recorder.append((name, line))
            if found:
                before = [b for b in found if b.line <= line]
                return (before[-1] if before else found[0]), scope
            line, scope = scope.start_line, scope.parent
        return None

    def signature(self, name: str, line: int):
        """What `name` means at `line` of this (module) scope, comparable across analyses: the
        binding's line and node (nodes are shared while their chunk's text is unchanged) or
        value (by identity for regions, functions and built modules)."""
        found = self.bindings.get(name)
        if not found:
            return None
        before = [b for b in found if b.line <= line]
        b = before[-1] if before else found[0]
        if b.node is not None:
            return (b.line, id(b.node), b.path)
        value = b.value
        inner = getattr(value, "region", None) or getattr(value, "node", None) or getattr(value, "build", None)
        return (b.line, id(inner) if inner is not None else value)


class Evaluator:
    def __init__(self, code_for_node) -> None:
        self._code = code_for_node
        self._active: set[int] = set()

    def text(self, node: cst.CSTNode) -> str:
        return self._code(node)

    def lookup(self, name: str, scope: Scope, line: int) -> Any:
        found = scope.find(name, line)
        if found is None:
            if name in ALLO_NAMES:
                return ALLO_NAMES[name]
            if name in TYPE_CONSTRUCTORS:
                return Symbol(name)
            dt = dtype_from_name(name)
            return dt if dt is not None else UNKNOWN
        binding, where = found
        if binding.node is None:
            return binding.value
        key = id(binding)
        if key in self._active:  # `M = M + 1` through a cycle: give up, do not recurse forever
            return UNKNOWN
        self._active.add(key)
        try:
            value = self.eval(binding.node, where, binding.line - 1)
        finally:
            self._active.discard(key)
        for i in binding.path:
            value = _index(value, i)
        return value

    def eval(self, node: cst.BaseExpression, scope: Scope, line: int) -> Any:
        try:
            return self._eval(node, scope, line)
        except (ArithmeticError, ValueError, TypeError, RecursionError, IndexError, KeyError):
            return UNKNOWN

    def _eval(self, node: cst.BaseExpression, scope: Scope, line: int) -> Any:
        if isinstance(node, cst.Integer):
            return int(node.value.replace("_", ""), 0)
        if isinstance(node, cst.Float):
            return float(node.value.replace("_", ""))
        if isinstance(node, cst.SimpleString):
            text = string_value(node)
            return UNKNOWN if text is None else text
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value == "True"
            if node.value == "None":
                return None
            return self.lookup(node.value, scope, line)
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(not isinstance(e, cst.Element) for e in node.elements):
                return UNKNOWN
            return tuple(self._eval(e.value, scope, line) for e in node.elements)
        if isinstance(node, cst.UnaryOperation):
            return _unary(node.operator, self._eval(node.expression, scope, line))
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.MatrixMultiply):
                left = self._eval(node.left, scope, line)
                if isinstance(left, AlloType):
                    return AlloType(left.dtype, left.shape, self.text(node.right))
                return UNKNOWN
            left = self._eval(node.left, scope, line)
            right = self._eval(node.right, scope, line)
            return _binary(node.operator, left, right)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, line)
        if isinstance(node, cst.Call):
            return self._call(node, scope, line)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, scope, line)
        return UNKNOWN

    def _attribute(self, node: cst.Attribute, scope: Scope, line: int) -> Any:
        # `allo.ir.types.int32`, `types.Int`: only the final name matters for Allo's types.
        name = node.attr.value
        dt = dtype_from_name(name)
        if dt is not None:
            return dt
        if name in TYPE_CONSTRUCTORS:
            return Symbol(name)
        if name in ("Shard", "Replicate"):
            return Symbol(f"Layout.{name}")
        base = self._eval(node.value, scope, line)
        if isinstance(base, AlloType) and name == "shape":
            return base.shape
        return UNKNOWN

    def _call(self, node: cst.Call, scope: Scope, line: int) -> Any:
        func = self._eval(node.func, scope, line)
        args = [self._eval(a.value, scope, line) for a in node.args if a.keyword is None]
        if isinstance(func, Symbol) and func.qualname in TYPE_CONSTRUCTORS:
            if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
                return dtype_from_constructor(func.qualname, args) or UNKNOWN
            return UNKNOWN
        builtin = node.func.value if isinstance(node.func, cst.Name) else None
        if builtin in _BUILTINS and func is UNKNOWN and args and all(_number(a) for a in args):
            return _BUILTINS[builtin](*args)
        return UNKNOWN

    def _subscript(self, node: cst.Subscript, scope: Scope, line: int) -> Any:
        base = self._eval(node.value, scope, line)
        items = []
        for el in node.slice:
            if not isinstance(el.slice, cst.Index):
                return UNKNOWN
            items.append(self._eval(el.slice.value, scope, line))
        if base is STREAM:
            return _stream(items)
        if base is CONSTEXPR and len(items) == 1:
            return ConstExprType(_as_dtype(items[0]))
        if isinstance(base, StreamType):
            return StreamType(base.element, base.depth, tuple(_dim(i) for i in items))
        dtype = _as_dtype(base)
        if dtype is not None or base is UNKNOWN:
            if isinstance(base, AlloType) and base.shape:
                return UNKNOWN
            return AlloType(dtype, tuple(_dim(i) for i in items))
        if isinstance(base, tuple) and len(items) == 1 and isinstance(items[0], int):
            return base[items[0]]
        return UNKNOWN

    def annotation(self, node: cst.BaseExpression, scope: Scope, line: int) -> Any:
        """An annotation as Allo reads it: string annotations are parsed first."""
        if isinstance(node, cst.SimpleString):
            text = string_value(node)
            if text is None:
                return UNKNOWN
            try:
                node = cst.parse_expression(text)
            except (cst.ParserSyntaxError, RecursionError, ValueError):
                return UNKNOWN
            inner = Evaluator(lambda n: cst.Module([]).code_for_node(n))
            inner._active = self._active
            return inner.annotation(node, scope, line)
        value = self.eval(node, scope, line)
        if isinstance(value, DType):
            return AlloType(value)
        return value


def string_value(node: cst.SimpleString) -> str | None:
    """The value of a short string literal; None for bytes, long or undecodable literals."""
    if len(node.value) > _MAX_STRING:
        return None
    try:
        value = node.evaluated_value
    except (SyntaxError, ValueError, MemoryError):  # e.g. a NUL byte typed into the literal
        return None
    return value if isinstance(value, str) else None


def _stream(items: list[Any]) -> Any:
    if len(items) != 2:
        return UNKNOWN
    element = items[0]
    if isinstance(element, DType):
        element = AlloType(element)
    if not isinstance(element, AlloType):
        element = AlloType(None)
    return StreamType(element, _dim(items[1]))


def _as_dtype(value: Any) -> DType | None:
    if isinstance(value, DType):
        return value
    if isinstance(value, AlloType) and value.is_scalar:
        return value.dtype
    return None


def _dim(value: Any) -> int | str | None:
    if isinstance(value, TypeParam):
        return value.name
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _index(value: Any, i: int) -> Any:
    if isinstance(value, tuple) and 0 <= i < len(value):
        return value[i]
    return UNKNOWN


def _checked(value: Any) -> Any:
    if isinstance(value, int) and abs(value) > _MAX_INT:
        return UNKNOWN
    return value


_BINARY = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Divide: operator.truediv,
    cst.Modulo: operator.mod,
    cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_,
    cst.BitXor: operator.xor,
}


def _binary(op: cst.BaseBinaryOp, left: Any, right: Any) -> Any:
    if not (_number(left) and _number(right)):
        return UNKNOWN
    if isinstance(op, cst.Power):
        if abs(right) > 64 or abs(left) > _MAX_INT:
            return UNKNOWN
        return _checked(left**right)
    if isinstance(op, (cst.LeftShift, cst.RightShift)):
        if not (isinstance(left, int) and isinstance(right, int)) or not 0 <= right <= 64:
            return UNKNOWN
        return _checked(left << right if isinstance(op, cst.LeftShift) else left >> right)
    fn = _BINARY.get(type(op))
    return UNKNOWN if fn is None else _checked(fn(left, right))


def _unary(op: cst.BaseUnaryOp, value: Any) -> Any:
    if isinstance(op, cst.Not):
        return UNKNOWN if value is UNKNOWN else not value
    if not _number(value):
        return UNKNOWN
    if isinstance(op, cst.Minus):
        return -value
    if isinstance(op, cst.Plus):
        return value
    if isinstance(op, cst.BitInvert) and isinstance(value, int):
        return ~value
    return UNKNOWN


_BUILTINS = {"int": int, "min": min, "max": max, "abs": abs}
