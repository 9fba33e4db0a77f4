"""Compile-time constants as Allo folds them: one set of rules and bounds for every reader.

Allo resolves a `meta_if` condition, a `meta_for` bound, a stream array's index or a dimension
with Python's own operators (`ASTResolver`). Here they are folded without running anything: the
analysis (`analysis/evaluate.py`, over libcst) and the graph (`ide/graph_fold.py`, over `ast`)
walk their own trees and leave every operation on values to this module, and `fold` is the walk
over an `ast` expression.

Values are bools, ints, floats, strings, tuples and frozensets of them. Whatever else an
operand is (a type, `UNKNOWN`, a tuple holding one) the result is `UNKNOWN`, except where a rule
says otherwise (`truth`). A file being typed must not make the server hang or run out of
memory, so every operation is bounded, and refused (`UNKNOWN`, never computed) beyond its bound:
an int is at most `MAX_INT` in size, an exponent or a shift count at most `MAX_EXPONENT`,
a string, tuple or frozenset at most `MAX_ITEMS` items counted through nested tuples (so that
comparing or hashing one is bounded too). `%` on a string (formatting) is refused.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

MAX_INT = 1 << 64  # |value| at most: every int a design writes for a shape, an index, a mask
MAX_INT_BITS = MAX_INT.bit_length()
MAX_EXPONENT = 64  # also the largest shift count
MAX_ITEMS = 4096

_NUMBER = (int, float)  # bool is an int, as in Python
_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
}
_BITWISE: dict[str, Callable[[Any, Any], Any]] = {"&": operator.and_, "|": operator.or_, "^": operator.xor}
_SET_OPS = {**_BITWISE, "-": operator.sub}  # frozensets: intersection, union, ..., difference
_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
}
_BUILTINS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "abs": abs, "int": int}
_FAILURES = (ArithmeticError, TypeError, ValueError, IndexError, KeyError, RecursionError, MemoryError)


# -- bounds -------------------------------------------------------------------------------------


def _items(value: Any, budget: int, plain: bool) -> int | None:
    """How many items `value` holds through nested tuples and frozensets (1 for a scalar), or
    None beyond `budget`, or (`plain`) when something in it is not a plain value."""
    if isinstance(value, str):
        return len(value) if len(value) <= budget else None
    if isinstance(value, (tuple, frozenset)):
        if len(value) > budget:
            return None
        total = len(value)
        for item in value:
            inner = _items(item, budget - total, plain)
            if inner is None:
                return None
            total += inner
        return total if total <= budget else None
    if plain and not isinstance(value, (*_NUMBER, type(None))):
        return None
    return 1


def checked(value: Any) -> Any:
    """`value` when it is within the bounds, else UNKNOWN."""
    if isinstance(value, int) and abs(value) > MAX_INT:
        return UNKNOWN
    if isinstance(value, (str, tuple, frozenset)) and _items(value, MAX_ITEMS, plain=False) is None:
        return UNKNOWN
    return value


def _plain(*values: Any) -> bool:
    """Every value is made of bools, ints, floats, None, strings, tuples and frozensets only."""
    return all(_items(v, MAX_ITEMS, plain=True) is not None for v in values)


def _length(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, tuple, frozenset)) else None


# -- operations ---------------------------------------------------------------------------------


def sequence(items: list[Any], kind: type = tuple) -> Any:
    """A tuple (or frozenset) of `items`; its items may be UNKNOWN, as in `(M, UNDEFINED)`."""
    if len(items) > MAX_ITEMS:
        return UNKNOWN
    try:
        return checked(kind(items))
    except _FAILURES:  # an unhashable item of a set
        return UNKNOWN


def binary(op: str, left: Any, right: Any) -> Any:
    """`left op right` (`op` as Python writes it: "+", "**", "<<", ...)."""
    if not _plain(left, right):
        return UNKNOWN
    try:
        return checked(_binary(op, left, right))
    except _FAILURES:
        return UNKNOWN


def _binary(op: str, left: Any, right: Any) -> Any:
    numbers = isinstance(left, _NUMBER) and isinstance(right, _NUMBER)
    if op == "**":
        return _power(left, right) if numbers else UNKNOWN
    if op in ("<<", ">>"):
        return _shift(op, left, right)
    if op == "*" and not numbers:
        return _repeat(left, right) if isinstance(left, _NUMBER) or isinstance(right, _NUMBER) else UNKNOWN
    if op == "+" and not numbers:
        return _concatenate(left, right)
    if isinstance(left, frozenset) and isinstance(right, frozenset):
        return _SET_OPS[op](left, right) if op in _SET_OPS else UNKNOWN
    if op in _BITWISE:
        return _BITWISE[op](left, right) if isinstance(left, int) and isinstance(right, int) else UNKNOWN
    if op in _ARITHMETIC:
        return _ARITHMETIC[op](left, right) if numbers else UNKNOWN
    return UNKNOWN


def _power(base: Any, exponent: Any) -> Any:
    if abs(exponent) > MAX_EXPONENT:
        return UNKNOWN
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if (abs(base).bit_length() - 1) * exponent >= MAX_INT_BITS:  # refused before computing it
            return UNKNOWN
    value = base**exponent
    return value if isinstance(value, _NUMBER) else UNKNOWN  # `(-8) ** 0.5` is complex


def _shift(op: str, left: Any, right: Any) -> Any:
    if not (isinstance(left, int) and isinstance(right, int)) or not 0 <= right <= MAX_EXPONENT:
        return UNKNOWN
    if op == "<<":
        return UNKNOWN if left.bit_length() + right > MAX_INT_BITS else left << right
    return left >> right


def _repeat(left: Any, right: Any) -> Any:
    count, seq = (left, right) if isinstance(left, _NUMBER) else (right, left)
    if not isinstance(count, int) or not isinstance(seq, (str, tuple)):
        return UNKNOWN
    inner = _items(seq, MAX_ITEMS, plain=False)
    if inner is None or max(count, 0) * max(inner, 1) > MAX_ITEMS:
        return UNKNOWN
    return seq * count


def _concatenate(left: Any, right: Any) -> Any:
    if not (type(left) is type(right) and isinstance(left, (str, tuple))):
        return UNKNOWN
    if (_length(left) or 0) + (_length(right) or 0) > MAX_ITEMS:
        return UNKNOWN
    return left + right


def unary(op: str, value: Any) -> Any:
    """`op value` for "not", "-", "+", "~"."""
    if op == "not":
        known = truth(value)
        return known if known is UNKNOWN else not known
    if op == "~":
        return checked(~value) if isinstance(value, int) else UNKNOWN
    if not isinstance(value, _NUMBER):
        return UNKNOWN
    return checked(-value if op == "-" else +value)


def truth(value: Any) -> Any:
    """Python's truth of `value`; UNKNOWN for UNKNOWN."""
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return bool(value)
    except _FAILURES:
        return UNKNOWN


def compare(op: str, left: Any, right: Any) -> Any:
    """`left op right` for "==", "<", "in", "not in", ... (one link of a chain)."""
    test = _COMPARE.get(op)
    if test is None or not _plain(left, right):
        return UNKNOWN
    try:
        return bool(test(left, right))
    except _FAILURES:
        return UNKNOWN


def both(values: list[Any], op: str) -> Any:
    """`a and b and ...` / `a or b or ...`: the operand Python's gives. After an operand that does
    not fold, a decisive bool (True for `or`, False for `and`, as a comparison gives) still
    decides the condition; any other operand is then UNKNOWN (the one before may be the value)."""
    decisive = op == "or"
    unknown = False
    for value in values:
        known = truth(value)
        if known is UNKNOWN:
            unknown = True
        elif known is decisive:
            return value if not unknown or isinstance(value, bool) else UNKNOWN
    return UNKNOWN if unknown else values[-1]


def builtin(name: str, args: list[Any]) -> Any:
    """`min`, `max`, `abs` or `int` of positional `args` (the caller checks the name is not rebound)."""
    func = _BUILTINS.get(name)
    if func is None or not args or not _plain(*args):
        return UNKNOWN
    try:
        return checked(func(*args))
    except _FAILURES:
        return UNKNOWN


def is_builtin(name: str) -> bool:
    return name in _BUILTINS


# -- over `ast` ---------------------------------------------------------------------------------

_AST_BINARY = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_AST_UNARY = {ast.Not: "not", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_AST_COMPARE = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
}


def fold(node: ast.expr, env: dict[str, Any]) -> Any:
    """The value of `node` with the names of `env` bound, or UNKNOWN: literals, names, tuples,
    lists and sets of known values, the operations above, chained comparisons, `and`/`or`,
    `x if c else y` and the builtins. Never raises."""
    try:
        return _fold(node, env)
    except _FAILURES:  # a nesting deeper than the interpreter's stack
        return UNKNOWN


def _fold(node: ast.expr, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return checked(node.value) if isinstance(node.value, (*_NUMBER, str)) else UNKNOWN
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_fold(e, env) for e in node.elts]
        if any(i is UNKNOWN for i in items):
            return UNKNOWN
        return sequence(items, frozenset if isinstance(node, ast.Set) else tuple)
    if isinstance(node, ast.BinOp):
        return binary(_AST_BINARY.get(type(node.op), ""), _fold(node.left, env), _fold(node.right, env))
    if isinstance(node, ast.UnaryOp):
        return unary(_AST_UNARY[type(node.op)], _fold(node.operand, env))
    if isinstance(node, ast.BoolOp):
        return both([_fold(v, env) for v in node.values], "or" if isinstance(node.op, ast.Or) else "and")
    if isinstance(node, ast.Compare):
        return _chain(node, env)
    if isinstance(node, ast.IfExp):
        test = truth(_fold(node.test, env))
        return UNKNOWN if test is UNKNOWN else _fold(node.body if test else node.orelse, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id in env or any(isinstance(a, ast.Starred) for a in node.args):
            return UNKNOWN
        return builtin(node.func.id, [_fold(a, env) for a in node.args])
    return UNKNOWN


def _chain(node: ast.Compare, env: dict[str, Any]) -> Any:
    """`a < b <= c`: False at the first link that fails, UNKNOWN at one that does not fold."""
    left = _fold(node.left, env)
    for op, right_node in zip(node.ops, node.comparators):
        right = _fold(right_node, env)
        result = compare(_AST_COMPARE[type(op)], left, right)
        if result is not True:
            return result
        left = right
    return True
