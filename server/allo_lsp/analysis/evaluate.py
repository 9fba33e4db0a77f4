"""Folding constants and types the way Allo resolves them from source.

Allo reads a region's source and resolves `M`, `Ty`, `P0 = M + 2` from module globals, from the
enclosing function's assignments and from closures. `Scope` records those bindings by line;
`Evaluator` folds an expression to an int, a type, a tuple, or `UNKNOWN` (never raises, never runs
user code: only literals, Allo's type constructors and the operations of
`protocol/constant_fold.py` are understood, with its rules and bounds, the graph's).
"""

from __future__ import annotations

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
from allo_lsp.protocol import constant_fold
from allo_lsp.protocol.constant_fold import MAX_ITEMS, UNKNOWN, checked, sequence


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
            return checked(int(node.value.replace("_", ""), 0))
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
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            if any(not isinstance(e, cst.Element) for e in node.elements):
                return UNKNOWN
            items = [self._eval(e.value, scope, line) for e in node.elements]
            if isinstance(node, cst.Set):  # only of known values, as `{0, M + 1}` in a condition
                return UNKNOWN if any(i is UNKNOWN for i in items) else sequence(items, frozenset)
            return sequence(items)
        if isinstance(node, cst.UnaryOperation):
            return constant_fold.unary(_UNARY.get(type(node.operator), ""), self._eval(node.expression, scope, line))
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, cst.MatrixMultiply):
                left = self._eval(node.left, scope, line)
                if isinstance(left, AlloType):
                    return AlloType(left.dtype, left.shape, self.text(node.right))
                return UNKNOWN
            left = self._eval(node.left, scope, line)
            right = self._eval(node.right, scope, line)
            return constant_fold.binary(_BINARY.get(type(node.operator), ""), left, right)
        if isinstance(node, cst.Comparison):
            return self._comparison(node, scope, line)
        if isinstance(node, cst.BooleanOperation):
            values = [self._eval(node.left, scope, line), self._eval(node.right, scope, line)]
            return constant_fold.both(values, "or" if isinstance(node.operator, cst.Or) else "and")
        if isinstance(node, cst.IfExp):
            test = constant_fold.truth(self._eval(node.test, scope, line))
            return UNKNOWN if test is UNKNOWN else self._eval(node.body if test else node.orelse, scope, line)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, line)
        if isinstance(node, cst.Call):
            return self._call(node, scope, line)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, scope, line)
        return UNKNOWN

    def _comparison(self, node: cst.Comparison, scope: Scope, line: int) -> Any:
        """`a < b <= c`: False at the first link that fails, UNKNOWN at one that does not fold."""
        left = self._eval(node.left, scope, line)
        for target in node.comparisons:
            right = self._eval(target.comparator, scope, line)
            result = constant_fold.compare(_COMPARE.get(type(target.operator), ""), left, right)
            if result is not True:
                return result
            left = right
        return True

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
        builtin = node.func.value if isinstance(node.func, cst.Name) else ""
        if (
            func is UNKNOWN
            and constant_fold.is_builtin(builtin)
            and all(a.star == "" and a.keyword is None for a in node.args)
        ):
            return constant_fold.builtin(builtin, args)
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
    if len(node.value) > MAX_ITEMS:
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


def _index(value: Any, i: int) -> Any:
    if isinstance(value, tuple) and 0 <= i < len(value):
        return value[i]
    return UNKNOWN


_BINARY = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
}
_UNARY = {cst.Not: "not", cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}
_COMPARE = {
    cst.Equal: "==",
    cst.NotEqual: "!=",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.In: "in",
    cst.NotIn: "not in",
}
