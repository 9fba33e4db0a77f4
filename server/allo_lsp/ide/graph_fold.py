"""Each PE of a kernel as Allo's compiler specialises it: `df.get_pid()` bound to the PE's
indices, the `allo.meta_if/elif/else` branches it keeps, and the stream elements its puts and
gets name (`fifo_A[i, j + 1]` -> `fifo_A[1, 2]`).

The model says which kernel uses which stream, not which element each PE names: that is folded
here from the kernel's source with Python's `ast`, one kernel at a time. Nothing runs: literals,
names bound to constants (module level, the functions enclosing the region, the region's body, the
kernel's straight-line assignments), arithmetic, comparisons, `in` a literal set, `and`/`or`/`not`,
`x if c else y` and `min`/`max`/`abs`/`int` fold; anything else is `UNKNOWN`. A use whose index
does not fold, or that sits in a meta branch whose condition does not, is not placed on a PE
(`PeUse.placed`): the graph links it at the kernel's level. A text that `ast` cannot parse places
nothing.
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass, field
from typing import Any

from allo_lsp.analysis.model import Kernel, Region


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
STREAM_OPS = {"put": "put", "get": "get", "try_put": "put", "try_get": "get"}
_META_CHAIN = ("meta_if", "meta_elif", "meta_else")
_MAX_INT = 1 << 64  # folding `2 ** 10 ** 10` in a half-typed file must not hang the server


@dataclass(frozen=True)
class PeUse:
    stream: str
    op: str  # "put" or "get"
    index: tuple[int, ...] | None  # the element of a stream array; None: a plain stream
    placed: bool  # False: the index or the branch around the use did not fold


@dataclass
class PeView:
    index: tuple[int, ...]  # the PE's `get_pid()`
    role: str | None  # the meta branches it keeps, outermost first; None: no meta branch, or unknown
    role_line: int | None  # 0-based line of the innermost branch kept
    uses: list[PeUse] = field(default_factory=list)
    # The `with allo.meta_*` statements of the branches it keeps, outermost first; None when a
    # branch did not fold (it may run any of them).
    branches: list[ast.With] | None = None


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def region_env(tree: ast.Module, region: Region) -> tuple[ast.FunctionDef | None, dict[str, Any]]:
    """The region's definition and the constants visible in its body."""
    env: dict[str, Any] = {}
    body: list[ast.stmt] = tree.body
    for name in region.scope_path:  # enclosing functions, outermost first
        _bind_all(body, env, stop_line=region.range.start.line + 1)
        outer = next((s for s in body if isinstance(s, ast.FunctionDef) and s.name == name), None)
        if outer is None:
            return None, env
        body = outer.body
    _bind_all(body, env, stop_line=region.range.start.line + 1)
    found = _function(body, region.name, region.range.start.line + 1)
    if found is not None:
        _bind_all(found.body, env, stop_line=None)
    return found, env


def kernel_pes(region_def: ast.FunctionDef, env: dict[str, Any], kernel: Kernel, streams: set[str]) -> list[PeView]:
    """One view per PE of `kernel`, in `instance_names` order; [] when its definition is not found
    or its PEs are not known."""
    names = kernel.instance_names
    found = _function(region_def.body, kernel.name, kernel.range.start.line + 1)
    if found is None or not names:
        return []
    extents = [m or 0 for m in kernel.mapping or ()]
    views, sites = [], {}  # the stream uses of each statement, found once for all the PEs
    for index in row_major(extents):
        walker = _Walker(dict(env), streams, index, sites)
        walker.block(found.body, placed=True, in_loop=False)
        role = " / ".join(walker.roles) if walker.roles and not walker.unknown_role else None
        branches = None if walker.unknown_role else walker.branches
        views.append(PeView(index, role, walker.role_line if role else None, walker.uses, branches))
    return views


def row_major(extents: list[int]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for extent in extents:
        out = [t + (i,) for t in out for i in range(extent)]
    return out


def _function(body: list[ast.stmt], name: str, line: int) -> ast.FunctionDef | None:
    """The definition of `name` whose name is on `line` (1-based) among `body`'s statements."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            first = min([stmt.lineno] + [d.lineno for d in stmt.decorator_list])
            if first <= line <= stmt.lineno:
                return stmt
    return None


def _bind_all(body: list[ast.stmt], env: dict[str, Any], stop_line: int | None) -> None:
    for stmt in body:
        if stop_line is not None and stmt.lineno >= stop_line:
            break
        _bind(stmt, env, in_loop=False)


def _bind(stmt: ast.stmt, env: dict[str, Any], in_loop: bool) -> None:
    if isinstance(stmt, ast.Assign):
        value = UNKNOWN if in_loop else fold(stmt.value, env)
        for target in stmt.targets:
            _assign(target, value, env)
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        env[stmt.target.id] = UNKNOWN if in_loop or stmt.value is None else fold(stmt.value, env)
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        env[stmt.target.id] = UNKNOWN
    elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
        env[stmt.name] = UNKNOWN
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            env[(alias.asname or alias.name).split(".")[0]] = UNKNOWN


def _assign(target: ast.expr, value: Any, env: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value if isinstance(value, tuple) and len(value) == len(target.elts) else None
        for i, element in enumerate(target.elts):
            _assign(element, values[i] if values is not None else UNKNOWN, env)


class _Walker:
    """One PE's walk over its kernel's body."""

    def __init__(self, env: dict[str, Any], streams: set[str], index: tuple[int, ...], sites: dict) -> None:
        self.env, self.streams, self.index, self.sites = env, streams, index, sites
        self.roles: list[str] = []
        self.role_line: int | None = None
        self.branches: list[ast.With] = []
        self.unknown_role = False
        self.uses: list[PeUse] = []

    def block(self, body: list[ast.stmt], placed: bool, in_loop: bool) -> None:
        chain = "none"  # the meta chain at this level: "open" (no branch taken yet), "taken", "unknown"
        for stmt in body:
            meta = _meta_call(stmt)
            if meta is not None and meta.func.attr in _META_CHAIN:  # type: ignore[union-attr]
                chain = self._meta(stmt, meta, chain, placed, in_loop)
                continue
            if meta is not None:  # meta_for: unrolled at compile time; its variable is not folded here
                self.block(stmt.body, placed, True)  # type: ignore[attr-defined]
                continue
            self.statement(stmt, placed, in_loop)

    def _meta(self, stmt: ast.With, call: ast.Call, chain: str, placed: bool, in_loop: bool) -> str:
        func = call.func.attr  # type: ignore[union-attr]
        if func == "meta_if":
            chain = "open"
        if chain == "taken":
            return chain
        if chain == "unknown":
            take = UNKNOWN
        elif func == "meta_else":
            take = True
        else:
            take = _truth(fold(call.args[0], self.env)) if call.args else UNKNOWN
        if take is UNKNOWN:
            self.unknown_role = True
            self.block(stmt.body, False, in_loop)
            return "unknown"
        if not take:
            return chain
        condition = ast.unparse(call.args[0]) if call.args else ""
        self.roles.append(f"{func}({condition})")
        self.role_line = stmt.lineno - 1
        self.branches.append(stmt)
        self.block(stmt.body, placed, in_loop)
        return "taken"

    def statement(self, stmt: ast.stmt, placed: bool, in_loop: bool) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.scan(stmt.iter, placed)
            _assign(stmt.target, UNKNOWN, self.env)
            self.block(stmt.body, placed, True)
            self.block(stmt.orelse, placed, in_loop)
        elif isinstance(stmt, ast.While):
            self.scan(stmt.test, placed)
            self.block(stmt.body, placed, True)
            self.block(stmt.orelse, placed, in_loop)
        elif isinstance(stmt, ast.If):  # a run-time branch: what it names is still the PE's hardware
            self.scan(stmt.test, placed)
            self.block(stmt.body, placed, in_loop)
            self.block(stmt.orelse, placed, in_loop)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self.scan(item.context_expr, placed)
            self.block(stmt.body, placed, in_loop)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                self.block(part, placed, in_loop)
        else:
            self.scan(stmt, placed)
            if _is_get_pid(stmt):
                self._pid(stmt)  # type: ignore[arg-type]
            else:
                _bind(stmt, self.env, in_loop)

    def _pid(self, stmt: ast.Assign) -> None:
        value: Any = self.index if len(self.index) != 1 else self.index[0]
        for target in stmt.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(self.index) == 1:
                value = self.index
            _assign(target, value, self.env)

    def scan(self, node: ast.AST, placed: bool) -> None:
        found = self.sites.get(id(node))
        if found is None:
            found = self.sites[id(node)] = _stream_sites(node, self.streams)
        for stream, op, index_node in found:
            if index_node is None:
                self.uses.append(PeUse(stream, op, None, placed))
            else:
                index = _index(index_node, self.env)
                self.uses.append(PeUse(stream, op, index, placed and index is not None))


def _stream_sites(node: ast.AST, streams: set[str]) -> list[tuple[str, str, ast.expr | None]]:
    """The puts and gets of the region's streams in `node`: (stream, op, the index expression of
    an element of a stream array, or None)."""
    found = []
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)):
            continue
        op, base = STREAM_OPS.get(sub.func.attr), sub.func.value
        if op is None:
            continue
        if isinstance(base, ast.Name) and base.id in streams:
            found.append((base.id, op, None))
        elif isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id in streams:
            found.append((base.value.id, op, base.slice))
    return found


def _meta_call(stmt: ast.stmt) -> ast.Call | None:
    """`with allo.meta_if(...):` (or a bare `meta_if` imported from allo): its call."""
    if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
        return None
    call = stmt.items[0].context_expr
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in (*_META_CHAIN, "meta_for"):
        return None
    if isinstance(func, ast.Name):
        call = ast.Call(ast.Attribute(ast.Name("allo"), name), call.args, call.keywords)  # one shape for both
    return call


def _is_get_pid(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
        return False
    func = stmt.value.func
    return (isinstance(func, ast.Attribute) and func.attr == "get_pid") or (
        isinstance(func, ast.Name) and func.id == "get_pid"
    )


def _index(node: ast.expr, env: dict[str, Any]) -> tuple[int, ...] | None:
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    values = [fold(p, env) for p in parts]
    if all(type(v) is int for v in values):
        return tuple(values)
    return None


def _truth(value: Any) -> Any:
    return UNKNOWN if value is UNKNOWN else bool(value)


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Div: operator.truediv,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_CALLS = {"min": min, "max": max, "abs": abs, "int": int}


def fold(node: ast.expr, env: dict[str, Any]) -> Any:
    """The value of `node` (an int, a bool, a float, a string, a tuple or frozenset of them) or
    UNKNOWN. Never raises."""
    try:
        value = _fold(node, env)
    except (ArithmeticError, TypeError, ValueError, RecursionError):
        return UNKNOWN
    if isinstance(value, int) and abs(value) > _MAX_INT:
        return UNKNOWN
    return value


def _fold(node: ast.expr, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, (int, float, str)) else UNKNOWN
    if isinstance(node, ast.Name):
        return env.get(node.id, UNKNOWN)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [fold(e, env) for e in node.elts]
        if any(i is UNKNOWN for i in items):
            return UNKNOWN
        return frozenset(items) if isinstance(node, ast.Set) else tuple(items)
    if isinstance(node, ast.BinOp):
        left, right = fold(node.left, env), fold(node.right, env)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Pow):
            return left**right if isinstance(right, int) and 0 <= right <= 64 and abs(left) < _MAX_INT else UNKNOWN
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            if not isinstance(right, int) or not 0 <= right <= 64:
                return UNKNOWN
            return left << right if isinstance(node.op, ast.LShift) else left >> right
        op = _BINARY.get(type(node.op))
        return op(left, right) if op is not None else UNKNOWN
    if isinstance(node, ast.UnaryOp):
        value = fold(node.operand, env)
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Not):
            return not value
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](value)
    if isinstance(node, ast.BoolOp):
        values = [_truth(fold(v, env)) for v in node.values]
        decisive = isinstance(node.op, ast.Or)  # `or` is decided by a True, `and` by a False
        if decisive in values:
            return decisive
        return UNKNOWN if UNKNOWN in values else not decisive
    if isinstance(node, ast.Compare):
        left = fold(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = fold(right_node, env)
            test = _COMPARE.get(type(op))
            if left is UNKNOWN or right is UNKNOWN or test is None:
                return UNKNOWN
            if not test(left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        test = _truth(fold(node.test, env))
        return UNKNOWN if test is UNKNOWN else fold(node.body if test else node.orelse, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        func = _CALLS.get(node.func.id)
        args = [fold(a, env) for a in node.args]
        if func is None or not args or any(a is UNKNOWN for a in args) or node.func.id in env:
            return UNKNOWN
        return func(*args)
    return UNKNOWN
