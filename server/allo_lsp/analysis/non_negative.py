"""Which integer expressions of a kernel body are never negative, as far as the body shows it.

What ADF092 needs to leave `i % 2` and `pi / 2` alone: C's and Python's `/` and `%` agree on
operands that are not negative. Known not negative:
- an int literal of at least 0, and a name the body never binds that the module folds to one
  (`N = 8`, `M, K = A.shape`: the kernel's constants);
- a name every binding of which is one of: a `df.get_pid()` value (a PE's index); a loop
  variable of `allo.grid(...)` / `allo.reduction(...)` (each index runs from 0); a loop
  variable of `range(...)` or `with allo.meta_for(...)` whose start is not negative and whose
  step is a positive number (`range(1, N, 2)`, `range(i, N)` inside `for i in range(N)`);
- a sum, product, quotient or remainder (`+ * / // %`) of two of those, and `+x` of one.

Anything else may be negative: a parameter, an array element, a local the body assigns (even
`x = 3`: another assignment may follow), a `-` (`i - 1`).
"""

from __future__ import annotations

import ast

from allo_lsp.protocol.kernel_model import Environment, is_pid_call

_CLOSED = (ast.Add, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)  # not negative of not negative
_FROM_ZERO = ("grid", "reduction")  # `allo.grid(N, M)`: every index from 0 up
_PID, _OTHER = "pid", "other"


class NonNegative:
    """`NonNegative(fn, env)(node)`: whether `node`, an expression of kernel `fn`, is never
    negative; `env` the kernel's world as its typing sees it (the module-level numbers the body
    reads by name, which names are Allo's module)."""

    def __init__(self, fn: ast.FunctionDef, env: Environment) -> None:
        self._fn = fn
        self._env = env
        self._constants = env.constants
        self._bindings: dict[str, list[object]] = {}
        self._known: set[str] | None = None  # made on the first question: most kernels ask none

    def __call__(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        if self._known is None:
            self._bindings = _bindings(self._fn, self._env)
            self._known = self._names()
        return self._holds(node, self._known)

    def _holds(self, node: ast.AST, known: set[str]) -> bool:
        if isinstance(node, ast.Constant):
            return type(node.value) in (int, bool) and node.value >= 0
        if isinstance(node, ast.Name):
            if node.id in self._bindings:
                return node.id in known
            value = self._constants.get(node.id)
            return type(value) in (int, bool) and value >= 0
        if isinstance(node, ast.BinOp) and isinstance(node.op, _CLOSED):
            return self._holds(node.left, known) and self._holds(node.right, known)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
            return self._holds(node.operand, known)
        return False

    def _names(self) -> set[str]:
        """The bound names every binding of which is known not negative. A loop's start may be
        an outer loop's variable (`range(i, N)`): names are added until none is, each on what is
        known already, so a name is never known from itself."""
        known: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, bindings in self._bindings.items():
                if name not in known and all(self._binds_non_negative(b, known) for b in bindings):
                    known.add(name)
                    changed = True
        return known

    def _binds_non_negative(self, binding: object, known: set[str]) -> bool:
        if binding == _PID:
            return True
        if not isinstance(binding, ast.Call):
            return False
        if isinstance(binding.func, ast.Attribute) and binding.func.attr in _FROM_ZERO:
            return True
        args = binding.args  # range(stop) / range(start, stop[, step]); meta_for takes the same
        if binding.keywords or not 1 <= len(args) <= 3:
            return False
        start_ok = len(args) == 1 or self._holds(args[0], known)
        return start_ok and (len(args) < 3 or self._positive_number(args[2]))

    def _positive_number(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            value = node.value
        elif isinstance(node, ast.Name) and node.id not in self._bindings:
            value = self._constants.get(node.id)
        else:
            return False
        return type(value) is int and value > 0


def _bindings(fn: ast.FunctionDef, env: Environment) -> dict[str, list[object]]:
    """Every name the kernel binds, with each of its bindings: `_PID`, the loop call whose
    variable it is (`range(...)`, `allo.grid(...)`, `allo.meta_for(...)`), or `_OTHER`."""
    special: dict[int, object] = {}  # id of a binding Name -> what it binds
    out: dict[str, list[object]] = {}
    for node in ast.walk(fn):  # breadth first: a loop or an assignment comes before its targets
        if isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                out.setdefault(node.id, []).append(special.get(id(node), _OTHER))
        elif isinstance(node, (ast.For, ast.comprehension)):
            loop = _loop_call(node.iter, env)
            if loop is not None:
                for target in _loop_targets(node.target, loop):
                    special[id(target)] = loop
        elif isinstance(node, ast.With):
            for item in node.items:
                loop = _loop_call(item.context_expr, env, with_item=True)
                if loop is not None and isinstance(item.optional_vars, ast.Name):
                    special[id(item.optional_vars)] = loop
        elif isinstance(node, ast.Assign) and is_pid_call(node.value, env):
            for target in node.targets:
                for name in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(name, ast.Name):
                        special[id(name)] = _PID
        elif isinstance(node, ast.arg):
            out.setdefault(node.arg, []).append(_OTHER)  # a parameter: any number the caller gives
    return out


def _loop_call(node: ast.expr, env: Environment, with_item: bool = False) -> ast.Call | None:
    """`range(...)`, `allo.grid(...)` / `allo.reduction(...)` as a loop's iterable, or
    `allo.meta_for(...)` as a `with` item: the loops whose variables this module follows."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name):
        return node if func.id == "range" and not with_item else None
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and env.is_allo(func.value.id)):
        return None
    wanted = ("meta_for",) if with_item else _FROM_ZERO
    return node if func.attr in wanted else None


def _loop_targets(target: ast.expr, loop: ast.Call) -> list[ast.Name]:
    """The loop variables: `i` of any loop, `i, j` of `allo.grid(N, M)` (a tuple of a range is
    a tuple of one number: not followed)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Tuple) and isinstance(loop.func, ast.Attribute):
        return [t for t in target.elts if isinstance(t, ast.Name)]
    return []
