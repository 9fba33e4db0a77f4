"""The `allo.meta_if`/`meta_elif`/`meta_else` bodies no PE of a kernel takes.

For the simulator and HLS targets Allo builds one function per PE (`_customize(unroll=True)`): its
`get_pid()` values are Python ints there, and `TypeInferer.visit_With` visits a branch's body only
when its condition, evaluated in Python, takes it. A body no PE takes is never typed or built, so
what would stop the build inside it does not (the AIE target builds with `unroll=False` and visits
every branch). The typing (`kernel_types.py`) drops its problems there, for both the executor and
the analysis. Conservative: a condition that does not fold for some PE (it reads something only
known at build time, a ConstExpr local), a branch inside a `meta_for` (each iteration pairs anew:
`MetaLevel.replay`), or a chain that does not pair leaves every body taken.
"""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Callable

from allo_lsp.protocol.constant_fold import UNKNOWN, fold, truth
from allo_lsp.protocol.meta_chains import BRANCHES, MetaChainError, MetaLevel, Truth

MAX_PES = 4096  # beyond this many PEs the bodies are not judged (each PE is one walk of the body)


class _GiveUp(Exception):
    pass


def untaken_lines(
    fn: ast.FunctionDef, mapping: tuple[int, ...], constants: dict, is_meta: Callable[[ast.expr, str], bool]
) -> set[int]:
    """The lines (`fn`'s numbering) of the meta branch bodies no PE of `mapping` takes (a
    problem is placed by its line: some are shown on a node made for the purpose).
    `is_meta(call, name)`: whether `call` is `allo.<name>(...)`."""
    names = _pid_names(fn, is_meta)
    if names is None or not mapping or math.prod(mapping) > MAX_PES or len(names) not in (1, len(mapping)):
        return set()
    ints = {k: v for k, v in constants.items() if type(v) is int}
    bodies = [s for s in ast.walk(fn) if isinstance(s, ast.With) and _branch(s, is_meta) is not None]
    if not bodies:
        return set()
    # Each condition's truth depends on the pid names it reads alone: folded once per their values.
    reads = {
        id(call): [n for n in names if any(isinstance(x, ast.Name) and x.id == n for x in ast.walk(call))]
        for s in bodies
        for call in (s.items[0].context_expr,)
    }
    truths: dict[tuple, Truth] = {}
    taken: set[int] = set()
    try:
        for pid in itertools.product(*(range(m) for m in mapping)):
            values = (
                dict(zip(names, pid)) if len(names) == len(mapping) else {names[0]: pid[0] if len(pid) == 1 else None}
            )
            if None in values.values():
                return set()  # `p = df.get_pid()` of a grid: a tuple, not folded here
            env = {**ints, **values}

            def truth_of(call: ast.Call, env=env, values=values) -> Truth:
                key = (id(call), *(values[n] for n in reads[id(call)]))
                if key not in truths:
                    value = fold(call.args[0], env) if len(call.args) == 1 else UNKNOWN
                    truths[key] = None if value is UNKNOWN else bool(truth(value))
                return truths[key]

            _walk(fn.body, MetaLevel(), truth_of, taken, is_meta)
            if len(taken) == len(bodies):
                return set()  # every body taken by some PE already: the others need no walk
    except (_GiveUp, MetaChainError):
        return set()
    return {
        line
        for s in bodies
        if id(s) not in taken and s.body
        for line in range(s.body[0].lineno, (s.body[-1].end_lineno or s.body[-1].lineno) + 1)
    }


def _pid_names(fn: ast.FunctionDef, is_meta) -> list[str] | None:
    """The names a top-level `i, j = df.get_pid()` binds, in order; None when bound otherwise."""
    for stmt in fn.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and is_meta(stmt.value, "get_pid"):
            target = stmt.targets[0]
            elts = target.elts if isinstance(target, ast.Tuple) else [target]
            if len(stmt.targets) != 1 or not all(isinstance(e, ast.Name) for e in elts):
                return None
            return [e.id for e in elts]
    return []


def _branch(stmt: ast.With, is_meta) -> str | None:
    if len(stmt.items) != 1 or not isinstance(stmt.items[0].context_expr, ast.Call):
        return None
    call = stmt.items[0].context_expr
    return next((kind for kind in BRANCHES if is_meta(call, kind)), None)


def _walk(stmts: list[ast.stmt], level: MetaLevel, truth_of, taken: set[int], is_meta) -> None:
    for stmt in stmts:
        if isinstance(stmt, ast.With):
            kind = _branch(stmt, is_meta)
            call = stmt.items[0].context_expr if stmt.items else None
            if kind is None and isinstance(call, ast.Call) and is_meta(call, "meta_for"):
                if any(isinstance(s, ast.With) and _branch(s, is_meta) for s in ast.walk(stmt)):
                    raise _GiveUp  # its branches pair once per unrolled iteration
                continue
            if kind is None:
                _walk(stmt.body, level, truth_of, taken, is_meta)
                continue
            cond = truth_of(call) if kind != "meta_else" else None
            went, _ = level.branch(kind, cond)
            if went is None:
                raise _GiveUp  # not known for this PE: every body counts as taken
            if went:
                taken.add(id(stmt))
                _walk(stmt.body, MetaLevel(), truth_of, taken, is_meta)
        elif isinstance(stmt, (ast.For, ast.While, ast.If)):
            _walk(stmt.body, level, truth_of, taken, is_meta)  # plain control flow shares the level
            _walk(stmt.orelse, level, truth_of, taken, is_meta)
