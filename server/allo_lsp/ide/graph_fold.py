"""Each PE of a kernel as Allo's compiler specialises it: `df.get_pid()` bound to the PE's
indices, the `allo.meta_if/elif/else` branches it keeps, and the stream elements its puts and
gets name (`fifo_A[i, j + 1]` -> `fifo_A[1, 2]`).

The model says which kernel uses which stream, not which element each PE names: that is folded
here from the kernel's source with Python's `ast`, one kernel at a time. Nothing runs: names are
bound to constants (module level, the functions enclosing the region, the region's body, the
kernel's straight-line assignments) and expressions folded by `protocol/constant_fold.py`, the
rules and bounds the analysis folds with; the meta branches pair as `protocol/meta_chains.py`
says, as in the analysis and the executor. A use whose index does not fold, or that sits in a
meta branch whose condition does not (or that pairs with no `meta_if`: Allo does not build it), is
not placed on a PE (`PeUse.placed`): the graph links it at the kernel's level. A text that `ast`
cannot parse places nothing.

Each view also keeps where in the source its facts are (`ide/active_pe.py` shows the code as one PE
runs it): its `get_pid()` statements and the values they bind, every meta branch it reached and
whether it takes it, and each use's call (`ast_range` turns a node into a model `Range`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from typing import Any

from allo_lsp.analysis.model import Kernel, Range, Region
from allo_lsp.protocol.constant_fold import UNKNOWN, fold, truth
from allo_lsp.protocol.meta_chains import BRANCHES, MetaChainError, MetaLevel, Truth

STREAM_OPS = {"put": "put", "get": "get", "try_put": "put", "try_get": "get"}
_LINES = re.compile(r"\r\n?|\n")


@dataclass(frozen=True)
class PeUse:
    stream: str
    op: str  # "put" or "get"
    index: tuple[int, ...] | None  # the element of a stream array; None: a plain stream
    placed: bool  # False: the index or the branch around the use did not fold
    # The `.put(...)`/`.get()` call (its `func` is `fifo_A[i, j + 1].put`): where the use is
    site: ast.Call | None = field(default=None, compare=False, repr=False)


@dataclass
class PeView:
    index: tuple[int, ...]  # the PE's `get_pid()`
    role: str | None  # the meta branches it keeps, outermost first; None: no meta branch, or unknown
    role_line: int | None  # 0-based line of the innermost branch kept
    uses: list[PeUse] = field(default_factory=list)
    # The `with allo.meta_*` statements of the branches it keeps, outermost first; None when a
    # branch did not fold (it may run any of them).
    branches: list[ast.With] | None = None
    # Every `with allo.meta_*` branch the walk reached (those inside a branch it does not take are
    # not reached) and whether the PE takes it: True, False, or None where that does not fold.
    decisions: list[tuple[ast.With, Truth]] = field(default_factory=list)
    # Each `... = df.get_pid()` statement and the names it binds with their values for this PE.
    pids: list[tuple[ast.Assign, tuple[tuple[str, Any], ...]]] = field(default_factory=list)


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
        view = PeView(index, role, walker.role_line if role else None, walker.uses, branches)
        view.decisions, view.pids = walker.decisions, walker.pids
        views.append(view)
    return views


def source_lines(text: str) -> list[str]:
    """The lines `ast` counts (not str.splitlines' form feeds): what `ast_range` reads."""
    return _LINES.split(text)


def ast_range(lines: list[str], node: ast.AST) -> Range:
    """An `ast` node's range in the model's terms (columns in code points, `ast`'s are UTF-8 bytes)."""
    line, end = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]

    def column(row: int, offset: int) -> int:
        text = lines[row] if row < len(lines) else ""
        return len(text.encode()[:offset].decode(errors="ignore"))

    return Range.of(line, column(line, node.col_offset), end, column(end, node.end_col_offset))  # type: ignore[attr-defined]


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
        self.decisions: list[tuple[ast.With, Truth]] = []
        self.pids: list[tuple[ast.Assign, tuple[tuple[str, Any], ...]]] = []
        self.level = MetaLevel()  # the open meta_if chains of the body being walked

    def block(self, body: list[ast.stmt], placed: bool, in_loop: bool) -> None:
        for stmt in body:
            meta = _meta_call(stmt)
            if meta is None:
                self.statement(stmt, placed, in_loop)
            elif meta.func.attr in BRANCHES:  # type: ignore[union-attr]
                self._branch(stmt, meta, placed, in_loop)  # type: ignore[arg-type]
            else:  # meta_for: unrolled at compile time, its body at this level; its variable is not folded
                bounds, mark, uses = [fold(a, self.env) for a in meta.args], self.level.mark(), len(self.uses)
                decided = len(self.decisions)
                if stmt.items[0].optional_vars is not None:  # type: ignore[attr-defined]
                    _assign(stmt.items[0].optional_vars, UNKNOWN, self.env)  # type: ignore[attr-defined]
                self.block(stmt.body, placed, True)  # type: ignore[attr-defined]
                self._replay(bounds, mark, uses, decided)

    def _replay(self, bounds: list, mark: int, uses: int, decided: int) -> None:
        """The pairing of the loop's other iterations (Allo unrolls it: `MetaLevel.replay`)."""
        if not (1 <= len(bounds) <= 3 and all(type(b) is int for b in bounds) and (len(bounds) < 3 or bounds[2])):
            return
        exact, self.level.exact = self.level.exact, True
        try:
            self.level.replay(mark, len(range(*bounds)))
        except MetaChainError:  # a later copy is unmatched: Allo does not build the kernel, and
            self.unknown_role = True  # the loop's uses are on no PE, as an unmatched branch's
            self.uses[uses:] = [replace(use, placed=False) for use in self.uses[uses:]]
            self.level.exact = False
        if not self.level.exact:  # a later copy pairs with another chain: its branches may run
            self.decisions[decided:] = [(w, None) for w, _ in self.decisions[decided:]]
        self.level.exact = exact and self.level.exact

    def _branch(self, stmt: ast.With, call: ast.Call, placed: bool, in_loop: bool) -> None:
        """A `meta_if`/`meta_elif`/`meta_else`, paired with its chain as Allo pairs it."""
        kind = call.func.attr  # type: ignore[attr-defined]
        cond = truth(fold(call.args[0], self.env)) if call.args and kind != "meta_else" else UNKNOWN
        try:
            taken, _ = self.level.branch(kind, None if cond is UNKNOWN else cond)
        except MetaChainError:  # Allo does not build the kernel (the analysis says why): no PE is known
            taken = None
        self.decisions.append((stmt, taken))
        if taken is False:
            return
        if taken is None:
            self.unknown_role = True
            self._body(stmt.body, False, in_loop)
            return
        condition = ast.unparse(call.args[0]) if call.args and kind != "meta_else" else ""
        self.roles.append(f"{kind}({condition})")
        self.role_line = stmt.lineno - 1
        self.branches.append(stmt)
        self._body(stmt.body, placed, in_loop)

    def _body(self, body: list[ast.stmt], placed: bool, in_loop: bool) -> None:
        """A meta branch's body: a level of its own (Allo's `with_scope_level + 1`)."""
        outer, self.level = self.level, MetaLevel()
        try:
            self.block(body, placed, in_loop)
        finally:
            self.level = outer

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
        bound: list[tuple[str, Any]] = []
        for target in stmt.targets:
            if isinstance(target, (ast.Tuple, ast.List)) and len(self.index) == 1:
                value = self.index
            _assign(target, value, self.env)
            bound += [(n.id, self.env.get(n.id, UNKNOWN)) for n in ast.walk(target) if isinstance(n, ast.Name)]
        self.pids.append((stmt, tuple(bound)))

    def scan(self, node: ast.AST, placed: bool) -> None:
        found = self.sites.get(id(node))
        if found is None:
            found = self.sites[id(node)] = _stream_sites(node, self.streams)
        for stream, op, index_node, call in found:
            if index_node is None:
                self.uses.append(PeUse(stream, op, None, placed, call))
            else:
                index = _index(index_node, self.env)
                self.uses.append(PeUse(stream, op, index, placed and index is not None, call))


def _stream_sites(node: ast.AST, streams: set[str]) -> list[tuple[str, str, ast.expr | None, ast.Call]]:
    """The puts and gets of the region's streams in `node`: (stream, op, the index expression of
    an element of a stream array or None, the call)."""
    found = []
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)):
            continue
        op, base = STREAM_OPS.get(sub.func.attr), sub.func.value
        if op is None:
            continue
        if isinstance(base, ast.Name) and base.id in streams:
            found.append((base.id, op, None, sub))
        elif isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name) and base.value.id in streams:
            found.append((base.value.id, op, base.slice, sub))
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
    if name not in (*BRANCHES, "meta_for"):
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
