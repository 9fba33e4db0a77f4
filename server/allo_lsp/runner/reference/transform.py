"""Kernel bodies rewritten into plain Python that the executor can run.

- `with allo.meta_if(c): ...` / `meta_elif` / `meta_else` chains become `if`/`elif`/`else`
  (resolved per PE, since `get_pid()` values are constants of the PE);
  `with allo.meta_for(a, b, s) as i:` becomes `for i in range(a, b, s)`;
- `x: int8 = v` declares a typed local: that and every later assignment to `x` store through
  the type (wrap, round); `C: int32[M, N] = 0` allocates a typed array;
- `A[i, j] = v` and `A[i] += v` store through `A`'s element type;
- `allo.grid`, `allo.get_pid`/`df.get_pid` and Allo's library calls (`allo.matmul`, ...) go to
  the executor (`__ref`); any other `allo.X` is reported as unsupported, with its line;
- a call of a region (`inner(local_A, local_B)`, `inner[2, 2](...)`) runs it as a sub-dataflow.
Line numbers are kept, so tracebacks and deadlock reports point into the user's file.
"""

from __future__ import annotations

import ast

REF = "__ref"
_META = ("meta_if", "meta_elif", "meta_else", "meta_for")


class Unsupported(Exception):
    """A construct the reference executor does not run (never a silently wrong answer)."""

    def __init__(self, what: str, line: int | None) -> None:
        self.line = line
        where = f" (line {line})" if line else ""
        super().__init__(f"{what}{where} is not supported by the reference executor; use the Allo backend")


class KernelTransformer(ast.NodeTransformer):
    def __init__(self, is_allo, is_region, evaluate_type) -> None:
        self.is_allo = is_allo  # name -> does it refer to allo / allo.dataflow?
        self.is_region = is_region  # name -> is it a region function?
        self.evaluate_type = evaluate_type  # annotation node -> index into the kernel's type table
        self.typed_locals: dict[str, int] = {}

    # -- statements --------------------------------------------------------------------------

    def generic_visit(self, node):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._block(value))
        return super().generic_visit(node)

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """Statements with meta chains turned into if/elif/else."""
        out: list[ast.stmt] = []
        chain: list[tuple[str, ast.With]] = []
        for stmt in stmts + [None]:  # type: ignore[list-item]
            kind = self._meta_kind(stmt)
            if kind in ("meta_elif", "meta_else") and chain:
                chain.append((kind, stmt))
                continue
            if chain:
                out.append(self._chain(chain))
                chain = []
            if stmt is None:
                break
            if kind == "meta_if":
                chain = [(kind, stmt)]
            elif kind == "meta_for":
                out.append(self._meta_for(stmt))
            elif kind in ("meta_elif", "meta_else"):
                raise Unsupported(f"allo.{kind}() without a preceding allo.meta_if()", stmt.lineno)
            else:
                out.append(stmt)
        return out

    def _meta_kind(self, stmt) -> str | None:
        if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
            return None
        call = stmt.items[0].context_expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _META:
            base = call.func.value
            if isinstance(base, ast.Name) and self.is_allo(base.id):
                return call.func.attr
        return None

    def _chain(self, chain) -> ast.stmt:
        node: list[ast.stmt] = []
        for kind, stmt in reversed(chain):
            body = self._block(stmt.body)
            if kind == "meta_else":
                node = body
                continue
            test = stmt.items[0].context_expr.args[0]
            node = [ast.copy_location(ast.If(test=test, body=body, orelse=node), stmt)]
        return node[0] if len(node) == 1 else ast.copy_location(ast.If(ast.Constant(True), node, []), chain[0][1])

    def _meta_for(self, stmt: ast.With) -> ast.stmt:
        item = stmt.items[0]
        target = item.optional_vars or ast.Name("_", ast.Store())
        loop = ast.For(target=target, iter=ast.Call(ast.Name("range", ast.Load()), item.context_expr.args, []),
                       body=self._block(stmt.body), orelse=[])
        return ast.copy_location(loop, stmt)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if not isinstance(node.target, ast.Name):
            return self.generic_visit(node)
        index = self.evaluate_type(node.annotation)
        value = self.visit(node.value) if node.value is not None else ast.Constant(0)
        self.typed_locals[node.target.id] = index
        call = _ref_call("declare", ast.Constant(index), value)
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], call), node)

    def visit_Assign(self, node: ast.Assign):
        node.value = self.visit(node.value)
        if len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in self.typed_locals:
                node.value = _ref_call("cast", ast.Constant(self.typed_locals[target.id]), node.value)
                return node
            if isinstance(target, ast.Subscript):
                node.targets = [self.visit(target)]
                node.value = _ref_call("store_for", _load(target.value), node.value)
                return node
        node.targets = [self.visit(t) for t in node.targets]
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        value = self.visit(node.value)
        if isinstance(target, ast.Name) and target.id in self.typed_locals:
            combined = ast.BinOp(ast.Name(target.id, ast.Load()), node.op, value)
            call = _ref_call("cast", ast.Constant(self.typed_locals[target.id]), combined)
            return ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], call), node)
        if isinstance(target, ast.Subscript):
            target = self.visit(target)
            combined = ast.BinOp(_load(target), node.op, value)
            store = ast.Assign([target], _ref_call("store_for", _load(target.value), combined))
            return ast.copy_location(store, node)
        node.value = value
        return node

    # -- expressions -------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call):
        node = self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and self.is_allo(func.value.id):
            return ast.copy_location(
                ast.Call(_ref_call("allo", ast.Constant(func.attr), ast.Constant(node.lineno)), node.args, node.keywords),
                node,
            )
        callee = func.value if isinstance(func, ast.Subscript) else func
        if isinstance(callee, ast.Name) and self.is_region(callee.id):
            generic = func.slice if isinstance(func, ast.Subscript) else ast.Constant(None)
            return ast.copy_location(
                ast.Call(_ref_call("region", ast.Name(callee.id, ast.Load()), generic), node.args, node.keywords),
                node,
            )
        return node


def _ref_call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(REF, ast.Load()), name, ast.Load()), list(args), [])


def _load(node: ast.expr) -> ast.expr:
    """The same expression in load context."""
    copy = ast.parse(ast.unparse(node), mode="eval").body
    return ast.copy_location(copy, node)
