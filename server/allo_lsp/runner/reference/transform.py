"""Kernel bodies rewritten into plain Python that the executor can run.

- `with allo.meta_if(c): ...` / `meta_elif` / `meta_else` become guarded blocks, paired as
  Allo pairs them (`protocol/meta_chains.py`: a stack per nesting level, so ordinary statements
  between the blocks of one chain do not end it). Each chain gets a flag that records whether a
  branch was taken; conditions are evaluated per PE, since `get_pid()` values are constants of
  the PE. `with allo.meta_for(a, b, s) as i:` becomes `for i in range(a, b, s)`;
- every operation the kernel's typing (`typed.kernel_types`) types is written as Allo computes
  it (`typed.py`: its result type, the casts Allo's builder emits, the simulator's puts); an
  untyped local's later assignments are cast to its first one's type. What Allo evaluates at
  compile time (a stream array's index, meta_if conditions, meta_for bounds) stays Python's;
- `x: int8 = v` declares a typed local: that and every later assignment to `x` store through
  the type (wrap, round); `C: int32[M, N] = 0` allocates a typed array;
- every subscript goes through the executor (`__ref.load` / `__ref.assign_item`): an array is
  addressed as Allo's simulator addresses memory (row-major, `library.address`), an integer value
  is bit-accessed (`x[i]`, `x[lo:hi]`, get and set); a bit set on a value writes the new value
  back to where it came from (`B[i][0] = b` updates `B[i]`);
- `allo.grid`, `allo.get_pid`/`df.get_pid` and Allo's library calls (`allo.matmul`, ...) go to
  the executor (`__ref`); any other `allo.X` is reported as unsupported, with its line;
- a call of a region (`inner(local_A, local_B)`, `inner[2, 2](...)`) runs it as a sub-dataflow:
  `yield from` the region's PEs (`scheduler.py`), the calling PE resumes when they have ended;
- a kernel is a generator (`suspends`): `s.put(v)` / `s.get()` run inline (`put_now`/`get_now`)
  and suspend (`yield from s.wait_put/wait_get`) only when the FIFO is full/empty; a failed
  `try_put`/`try_get`/`empty`/`full` on a stream gives way once (`polled`), so a polling loop
  lets the PE it waits for run. A stream operation where no generator can suspend (a lambda, a
  comprehension, a nested function, a helper given the stream) is refused by name.
Line numbers are kept, so tracebacks and deadlock reports point into the user's file.
"""

from __future__ import annotations

import ast
import itertools

from allo_lsp.protocol.constant_fold import fold
from allo_lsp.protocol.meta_chains import MetaChainError, MetaLevel
from allo_lsp.runner.reference.syntax import BuildError, Unsupported, _template

REF = "__ref"
_META = ("meta_if", "meta_elif", "meta_else", "meta_for")
_VALUE_METHODS = ("reverse", "bitcast")  # Allo's methods on integer/float values


_SUSPENDING = {"put": 1, "get": 0}  # method -> argument count: a blocking stream operation
_POLLING = {"try_put": 1, "try_get": 0, "empty": 0, "full": 0}
_COLLECTIVE = ("gather", "scatter")  # df.gather / df.scatter put and get streams


class KernelTransformer(ast.NodeTransformer):
    def __init__(
        self,
        is_allo,
        is_region,
        evaluate_type,
        is_stream=None,
        suspends: bool = False,
        plain_int=None,
        flat_arrays=None,
        types=None,
    ) -> None:
        from allo_lsp.runner.reference import typed

        self._ops = typed
        # The kernel's Allo types (`typed.kernel_types`, on the tree before it is rewritten):
        # each typed operation is written as Allo computes it (`typed.py`); None: untyped.
        self.types = types
        self._constant = False  # inside an expression Allo evaluates at compile time
        self.is_allo = is_allo  # name -> does it refer to allo / allo.dataflow?
        self.is_region = is_region  # name -> is it a region function?
        self.evaluate_type = evaluate_type  # annotation node -> index into the kernel's type table
        self.is_stream = is_stream or (lambda name: False)  # name -> is it a stream (or stream array)?
        self.suspends = suspends  # a kernel (a generator) rather than a plain function
        # type index -> (mask, half) when a store into it may be written inline on plain ints
        # (`ScalarType.plain_int`), else None: only where no value's width is ever asked.
        self.plain_int = plain_int or (lambda index: None)
        # parameter -> (shape, (mask, half) or None): arrays addressed through `__ref.flat`
        # (`A[i, j]` is `flat[i * N + j]`, bounds-checked as `values.address` checks them),
        # kept only for parameters the body never rebinds.
        self.flat_arrays: dict = dict(flat_arrays or {})
        self.streams: dict[str, set] = {}  # stream name -> the operations this body does on it
        self._depth = 0  # > 0 inside a lambda, comprehension or nested function: no suspension there
        self._entered = False  # the kernel's own `def` has been visited
        self.typed_locals: dict[str, int] = {}
        self._level = MetaLevel()
        self._chain_flags: dict[tuple[int, int], str] = {}  # (level, chain id) -> flag name
        self._temps = itertools.count()
        self._affine_loops: set[str] = set()  # variables of the enclosing `affine.for` loops
        self._bound: set[str] = set()  # names the kernel binds (they shadow module constants)
        # Plain functions the kernel calls, which Allo builds typed (`typed.helpers`).
        self._helpers: dict = dict(types.helpers) if types is not None and hasattr(types, "helpers") else {}

    # -- statements --------------------------------------------------------------------------

    def generic_visit(self, node):
        # Every child is visited once: statement lists through `_block` (the bodies of plain
        # loops and `if`s share the enclosing meta level, as Allo's `with_scope_level` does; only
        # a meta body opens a new one, `_meta_body`), everything else as NodeTransformer would.
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._block(value))
            elif isinstance(value, list):
                items = []
                for item in value:
                    item = self.visit(item) if isinstance(item, ast.AST) else item
                    if item is not None:
                        items.extend(item if isinstance(item, list) else [item])
                value[:] = items
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            kind = self._meta_kind(stmt)
            if kind == "meta_for":
                out.append(self._meta_for(stmt))
            elif kind is not None:
                out.extend(self._meta_branch(kind, stmt))
            else:
                new = self.visit(stmt)
                out.extend(new if isinstance(new, list) else [new] if new is not None else [])
        return out

    def _meta_body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        outer, self._level = self._level, MetaLevel()
        try:
            return self._block(stmts) or [ast.Pass()]
        finally:
            self._level = outer

    def _meta_kind(self, stmt) -> str | None:
        if not isinstance(stmt, ast.With) or len(stmt.items) != 1:
            return None
        call = stmt.items[0].context_expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _META:
            base = call.func.value
            if isinstance(base, ast.Name) and self.is_allo(base.id):
                return call.func.attr
        return None

    def _meta_branch(self, kind: str, stmt: ast.With) -> list[ast.stmt]:
        """One `meta_if`/`meta_elif`/`meta_else` block as Python guarded by its chain's flag.

        meta_if:   flag = bool(c); if flag: body
        meta_elif: if not flag and c: flag = True; body
        meta_else: if not flag: body
        """
        try:
            _, chain = self._level.branch(kind, tag=stmt.lineno)
        except MetaChainError as exc:
            raise BuildError(str(exc), stmt.lineno) from exc
        self._one_flag_per_chain(stmt.lineno)
        key = (id(self._level), chain)
        body = self._meta_body(stmt.body)
        args = stmt.items[0].context_expr.args
        if kind == "meta_if":
            flag = self._chain_flags[key] = f"__meta_{next(self._temps)}"
            test = self._resolved(args[0]) if args else ast.Constant(True)
            # `not not c`, not `bool(c)`: designs import Allo's `bool` type under that name.
            truth = ast.UnaryOp(ast.Not(), ast.UnaryOp(ast.Not(), test))
            set_flag = ast.Assign([ast.Name(flag, ast.Store())], truth)
            guarded = ast.If(ast.Name(flag, ast.Load()), body, [])
            return [ast.copy_location(set_flag, stmt), ast.copy_location(guarded, stmt)]
        flag = self._chain_flags[key]
        not_taken = ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load()))
        if kind == "meta_elif":
            test = ast.BoolOp(ast.And(), [not_taken, self._resolved(args[0])])
            taken = ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(True))
            return [ast.copy_location(ast.If(test, [taken, *body], []), stmt)]
        return [ast.copy_location(ast.If(not_taken, body, []), stmt)]

    def _meta_for(self, stmt: ast.With) -> ast.stmt:
        item = stmt.items[0]
        target = item.optional_vars or ast.Name("_", ast.Store())
        bounds = [self._resolved(a) for a in item.context_expr.args]
        # Its body stays on this meta level (Allo's builder unrolls it without `with_scope_level
        # + 1`): a meta_else in it pairs with a meta_if before the loop, and one after it with a
        # chain its body left open, as the last unrolled copy's (the flag is set per iteration).
        mark = self._level.mark()
        body = self._block(stmt.body) or [ast.Pass()]
        self._unrolled(stmt, mark)
        loop = ast.For(target=target, iter=_ref_call("range", *bounds), body=body, orelse=[])
        return ast.copy_location(loop, stmt)

    def _unrolled(self, stmt: ast.With, mark: int) -> None:
        """Allo unrolls the loop, so its body's branches pair once per iteration (`MetaLevel.replay`):
        a copy that is unmatched is Allo's build error; a copy that pairs with another chain than
        the first did cannot be written as this loop's one flag per `meta_if`, and is refused."""
        constants = {k: v for k, v in self.types.env.constants.items() if isinstance(v, int)} if self.types else {}
        bounds = [fold(a, constants) for a in stmt.items[0].context_expr.args]
        known = 1 <= len(bounds) <= 3 and all(isinstance(b, int) for b in bounds) and (len(bounds) < 3 or bounds[2])
        try:  # bounds known only when the PE runs: as if two or more iterations
            self._level.replay(mark, len(range(*bounds)) if known else 2)
        except MetaChainError as exc:
            if known:
                raise BuildError(str(exc), exc.tag) from exc  # type: ignore[arg-type]
            self._level.exact = False
        if not known and not self._level.exact:
            raise Unsupported(
                "an allo.meta_for whose body's meta branches pair with other chains in later iterations, "
                "with bounds known only when its PE runs",
                stmt.lineno,
            )
        self._one_flag_per_chain(stmt.lineno)

    def _one_flag_per_chain(self, line: int) -> None:
        if not self._level.exact:
            raise Unsupported(
                "a meta branch pairing with a meta_if chain of an earlier allo.meta_for iteration than "
                "its first copy did (Allo unrolls the loop)",
                line,
            )

    def visit_FunctionDef(self, node: ast.FunctionDef):
        if not self._entered:
            self._entered = True  # the kernel itself
            self._bound = {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)} | {
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
            own = {a.arg for a in node.args.args}
            for sub in ast.walk(node):
                rebound = (
                    sub.id
                    if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load)
                    else sub.arg
                    if isinstance(sub, ast.arg) and sub.arg not in own
                    else None
                )
                if isinstance(sub, (ast.Global, ast.Nonlocal)):
                    self.flat_arrays = {k: v for k, v in self.flat_arrays.items() if k not in sub.names}
                self.flat_arrays.pop(rebound, None)
            node = self.generic_visit(node)
            views = [
                _template(f"__m_{name} = __ref.flat({name}, {tuple(shape)!r}, {node.lineno})")
                for name, (shape, _) in self.flat_arrays.items()
            ]
            node.body[:0] = [ast.fix_missing_locations(ast.copy_location(v, node)) for v in views]
            if self.suspends:
                # Always a generator, even when it never touches a stream (the scheduler resumes it).
                node.body.append(ast.If(ast.Constant(False), [ast.Expr(ast.Yield(None))], []))
            return node
        return self._nested(node)

    def _nested(self, node):
        self._depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self._depth -= 1

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _nested
    visit_AsyncFunctionDef = _nested

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if self.suspends and self._stream_call(call, _SUSPENDING) == "put":
            self._refuse_nested(call)
            n = next(self._temps)
            src, base = self._ty(call.args[0]), _base_name(call.func.value)
            stream, value = self.visit(call.func.value), self.visit(call.args[0])
            elem = self.types.env.streams.get(base) if self.types is not None else None
            if src is not None and elem is not None and not elem.shape:
                value = self._ops.put_cast(value, src, elem.ty)
            stmt = _template(
                f"if not (__f{n} := STREAM).put_now(__v{n} := VALUE): "
                f"yield from __f{n}.wait_put(__v{n}, {call.lineno})",
                STREAM=stream,
                VALUE=value,
            )
            self._note(call.func.value, "put")
            return ast.copy_location(stmt, node)
        return self.generic_visit(node)

    def _stream_call(self, node, methods: dict) -> str | None:
        """The stream operation `node` is (`s.put(v)`, `fifo[i].get()`), or None."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords):
            return None
        name = node.func.attr
        if name not in methods or len(node.args) != methods[name]:
            return None
        if methods is _POLLING and _base_name(node.func.value) is None:
            return None
        if methods is _POLLING and not self.is_stream(_base_name(node.func.value)):
            return None
        return name

    def _note(self, stream: ast.expr, op: str) -> None:
        base = _base_name(stream)
        if base is not None and self.is_stream(base):
            self.streams.setdefault(base, set()).add(op)

    def _refuse_nested(self, node: ast.AST) -> None:
        if self._depth:
            raise Unsupported(
                "a stream operation inside a lambda, comprehension or nested function "
                "(only a kernel's own body can wait on a FIFO)",
                getattr(node, "lineno", None),
            )

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if not isinstance(node.target, ast.Name):
            return self.generic_visit(node)
        index = self.evaluate_type(node.annotation)
        self.typed_locals[node.target.id] = index
        if node.value is None:
            # `packed: UInt(16)` with no value: declared, assigned later (Allo zero-fills).
            value: ast.expr = ast.Constant(0)
        else:
            value = self._stored(node.value, node.target)
        if self.plain_int(index) is not None:
            call = self._typed(index, value)
        else:
            call = _ref_call("declare", ast.Constant(index), value, ast.Constant(node.lineno))
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], call), node)

    def _typed(self, index: int, value: ast.expr) -> ast.expr:
        """`value` as the typed local of type `index` stores it."""
        wrap = self.plain_int(index)
        if wrap is None:
            return _ref_call("cast", ast.Constant(index), value)
        mask, half = wrap
        if mask == -1:
            return _template("__ref_int(VALUE)", VALUE=value)
        if half:
            return _template(f"((__ref_int(VALUE) + {half}) & {mask}) - {half}", VALUE=value)
        return _template(f"__ref_int(VALUE) & {mask}", VALUE=value)

    def _ty(self, node: ast.AST):
        """`node`'s scalar Allo type (a `typing_rules.Ty`), None when untyped or an array."""
        found = self.types.of(node) if self.types is not None and not self._constant else None
        return found.ty if found is not None and not found.shape else None

    def _resolved(self, node: ast.expr) -> ast.expr:
        """`node` rewritten as a compile-time expression: Allo evaluates a stream array's index,
        a meta_if condition and meta_for bounds in Python (`ASTResolver`), not in its types
        (`fifo[(pi - 1) % P]` is Python's %)."""
        outer, self._constant = self._constant, True
        try:
            return self.visit(node)
        finally:
            self._constant = outer

    def _stored(self, value: ast.expr, target: ast.expr) -> ast.expr:
        """`value` rewritten, cast for a store into `target` (a typed local, an array element,
        which store by value: only a zero extension differs) or into an untyped local after its
        first assignment (no store casts it: the cast Allo emits is written here)."""
        src, dst = self._ty(value), self._ty(target)
        zext = self.types is not None and self._ops.zero_extends(value, self.types)
        first = self.types is not None and id(target) in self.types.locals
        value = self.visit(value)
        if first and src is not None:
            # The first binding makes the local of the value's own type (`visit_Assign`), no
            # cast; an int literal is still the i32 `MockConstant` builds: `x = 5000000000` holds
            # its low 32 bits, 705032704.
            return self._ops._literal(value, src)
        if src is None or dst is None or first:
            return value
        if isinstance(target, ast.Name) and target.id not in self.typed_locals:
            return self._ops.cast(value, src, dst, zext)
        return self._ops.store_cast(value, src, dst, zext)

    def visit_Assign(self, node: ast.Assign):
        single = len(node.targets) == 1 and isinstance(node.targets[0], (ast.Name, ast.Subscript))
        value = self._stored(node.value, node.targets[0]) if single else self.visit(node.value)
        if len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in self.typed_locals:
                node.value = self._typed(self.typed_locals[target.id], value)
                return node
            if isinstance(target, ast.Subscript):
                return self._store(target, value, node)
        node.value = value
        node.targets = [self.visit(t) for t in node.targets]
        return node

    def visit_AugAssign(self, node: ast.AugAssign):
        target = node.target
        tt, vt, res = self._ty(target), self._ty(node.value), self._ty(node)
        zr = self.types is not None and self._ops.zero_extends(node.value, self.types)
        value = self.visit(node.value)
        symbol = self._ops.symbol(node.op)
        if None not in (tt, vt, res, symbol) and isinstance(target, (ast.Name, ast.Subscript)):
            # `x op= v` is `x = x op v`: the operation in its Allo type, then the store's cast.
            combined = self._ops.binary(symbol, self.visit(_load(target)), value, tt, vt, res, False, zr, node.lineno)
            if combined is not None:
                zext = isinstance(node.op, ast.LShift)
                if isinstance(target, ast.Name) and target.id not in self.typed_locals:
                    stored = self._ops.cast(combined, res, tt, zext)
                    return ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], stored), node)
                combined = self._ops.store_cast(combined, res, tt, zext)
                if isinstance(target, ast.Name):
                    call = self._typed(self.typed_locals[target.id], combined)
                    return ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], call), node)
                return self._store(target, combined, node)
        if isinstance(target, ast.Name) and target.id in self.typed_locals:
            combined = ast.BinOp(ast.Name(target.id, ast.Load()), node.op, value)
            call = self._typed(self.typed_locals[target.id], combined)
            return ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], call), node)
        if isinstance(target, ast.Subscript):
            combined = ast.BinOp(self.visit(_load(target)), node.op, value)
            return self._store(target, combined, node)
        node.value = value
        return node

    def _store(self, target: ast.Subscript, value: ast.expr, at: ast.stmt) -> list[ast.stmt]:
        """`T[idx] = value`: an array element (typed, row-major addressed) or bits of a value.

        __v = value; __r = __ref.assign_item(T, idx, __v, line)
        if __r is not __ref.STORED: T = __r   (itself a store: T's type applies)
        """
        n = next(self._temps)
        v, r = f"__v{n}", f"__r{n}"
        stmts: list[ast.stmt] = [ast.Assign([ast.Name(v, ast.Store())], value)]
        flat = self._flat(target)
        if flat is not None:
            offset, checked, index = flat
            name = target.value.id
            stored = ast.Name(v, ast.Load())
            wrap = self.flat_arrays[name][1]
            if wrap is not None:  # a memoryview holds only in-range integers: wrapped here
                mask, half = wrap
                stored = _template(
                    f"((__ref_int(VALUE) + {half}) & {mask}) - {half}" if half else f"__ref_int(VALUE) & {mask}",
                    VALUE=stored,
                )
            stmts.append(
                _template(
                    f"if CHECKED: __m_{name}[OFFSET] = STORED\n"
                    f"else: __ref.assign_item({name}, INDEX, {v}, {at.lineno})",
                    CHECKED=checked,
                    OFFSET=offset,
                    STORED=stored,
                    INDEX=index,
                )
            )
            return [ast.copy_location(s, at) for s in stmts]
        index = self._subscript_index(target)
        container = self.visit(_load(target.value))
        call = _ref_call("assign_item", container, index, ast.Name(v, ast.Load()), ast.Constant(at.lineno))
        stmts.append(ast.Assign([ast.Name(r, ast.Store())], call))
        write_back = ast.Assign([_store_ctx(target.value)], ast.Name(r, ast.Load()))
        test = ast.Compare(
            ast.Name(r, ast.Load()), [ast.IsNot()], [ast.Attribute(ast.Name(REF, ast.Load()), "STORED", ast.Load())]
        )
        stmts.append(ast.If(test, self._block([ast.copy_location(write_back, at)]), []))
        return [ast.copy_location(s, at) for s in stmts]

    # -- expressions -------------------------------------------------------------------------

    def _zext(self, node: ast.expr) -> bool:
        return self.types is not None and self._ops.zero_extends(node, self.types)

    def _array_operation(self, node: ast.expr, left: ast.expr, right: ast.expr) -> tuple | None:
        """(left's, right's, the result's) element types of `node`, an operation whose value is an
        array and whose operands are typed; None otherwise."""
        found = self.types.of(node) if self.types is not None and not self._constant else None
        if found is None or not found.shape:
            return None
        operands = self.types.of(left), self.types.of(right)
        return None if None in operands else (operands[0].ty, operands[1].ty, found.ty)

    def _elementwise(self, node: ast.expr, symbol: str, types: tuple, left: ast.expr, right: ast.expr) -> ast.expr:
        """`node` (its operands visited: `left`, `right`) computed element by element in Allo's
        types (`typed.elementwise`), or left to numpy where ours has no such operation."""
        lt, rt, res = types
        fn = self._ops.elementwise(symbol, lt, rt, res, node.lineno)
        if fn is None:
            return node
        kind = [ast.Constant(res.kind), ast.Constant(res.bits), ast.Constant(res.frac)]
        return ast.copy_location(_ref_call("elementwise", fn, left, right, *kind), node)

    def visit_BinOp(self, node: ast.BinOp):
        lt, rt, res = self._ty(node.left), self._ty(node.right), self._ty(node)
        array = self._array_operation(node, node.left, node.right)
        zl, zr = self._zext(node.left), self._zext(node.right)
        node = self.generic_visit(node)
        symbol = self._ops.symbol(node.op)
        if array is not None and symbol is not None:
            return self._elementwise(node, symbol, array, node.left, node.right)
        if None in (lt, rt, res, symbol):
            return node
        typed = self._ops.binary(symbol, node.left, node.right, lt, rt, res, zl, zr, node.lineno)
        return node if typed is None else ast.copy_location(typed, node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        src, res, zext = self._ty(node.operand), self._ty(node), self._zext(node.operand)
        node = self.generic_visit(node)
        if src is None or res is None:
            return node
        typed = self._ops.unary(node.op, node.operand, src, res, zext)
        return node if typed is None else ast.copy_location(typed, node)

    def visit_Compare(self, node: ast.Compare):
        if len(node.ops) != 1:
            return self.generic_visit(node)
        lt, rt = self._ty(node.left), self._ty(node.comparators[0])
        zl, zr = self._zext(node.left), self._zext(node.comparators[0])
        node = self.generic_visit(node)
        if lt is None or rt is None:
            return node
        typed = self._ops.compare(node.ops[0], node.left, node.comparators[0], lt, rt, zl, zr)
        return node if typed is None else ast.copy_location(typed, node)

    def visit_IfExp(self, node: ast.IfExp):
        bt, ot, res = self._ty(node.body), self._ty(node.orelse), self._ty(node)
        zb, zo = self._zext(node.body), self._zext(node.orelse)
        node = self.generic_visit(node)
        if None not in (bt, ot, res):
            node.body = self._ops.cast(node.body, bt, res, zb)
            node.orelse = self._ops.cast(node.orelse, ot, res, zo)
        return node

    def visit_Constant(self, node: ast.Constant):
        if self._ty(node) == self._ops.rules.FLOAT32 and type(node.value) is float:
            return ast.copy_location(_template("__ref_f32(E)", E=node), node)  # a float32 literal
        return node

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and self.types is not None:
            constant = self.types.env.constants.get(node.id)
            if type(constant) is float and self._ty(node) == self._ops.rules.FLOAT32:
                return ast.copy_location(_template("__ref_f32(E)", E=node), node)  # a module-level float
        return node

    def _typed_call(self, node: ast.Call):
        """`float(x)`, `int(x)`, `min(a, b)`, `max(a, b)` as Allo casts them (`build_Call`)."""
        func, res = node.func, self._ty(node)
        if not (isinstance(func, ast.Name) and func.id in ("float", "int", "min", "max")) or res is None:
            return None
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        kinds = [self._ty(a) for a in node.args]
        zexts = [self._zext(a) for a in node.args]
        if None in kinds or (func.id in ("float", "int")) != (len(kinds) == 1):
            return None
        args = [self._ops.cast(self.visit(a), t, res, z) for a, t, z in zip(node.args, kinds, zexts)]
        if func.id in ("float", "int"):
            return args[0]
        if res.cls == "float" and len(args) == 2:
            # MinimumFOp/MaximumFOp: a NaN wins and -0.0 is below 0.0 (Python's min keeps its
            # first argument when the comparison is false).
            return ast.copy_location(_template(f"__ref_f{func.id}(A, B)", A=args[0], B=args[1]), node)
        return ast.copy_location(ast.Call(ast.Name(func.id, ast.Load()), args, []), node)

    def visit_Subscript(self, node: ast.Subscript):
        if not isinstance(node.ctx, ast.Load):
            return self.generic_visit(node)
        if isinstance(node.value, ast.Name) and self.is_stream(node.value.id):
            outer, self._constant = self._constant, True
            try:
                index = self._index(node.slice)
            finally:
                self._constant = outer
            if any(isinstance(n, ast.Slice) for n in ast.walk(node.slice)):
                # `pipe[:]`: a list of streams (a slice is no dict key before Python 3.12).
                call = ast.Call(ast.Attribute(node.value, "select", ast.Load()), [index], [])
                return ast.copy_location(call, node)
            node.slice = index  # `fifo[i, j + 1]`: the FIFO array's own (dict) lookup
            return node
        flat = self._flat(node)
        if flat is not None:
            offset, checked, index = flat
            name = node.value.id
            src = f"(__m_{name}[OFFSET] if CHECKED else __ref.load({name}, INDEX, {node.lineno}))"
            return ast.copy_location(_template(src, OFFSET=offset, CHECKED=checked, INDEX=index), node)
        index = self._subscript_index(node)
        container = self.visit(node.value)
        call = _ref_call("load", container, index, ast.Constant(node.lineno))
        return ast.copy_location(call, node)

    def _flat(self, node: ast.Subscript):
        """For `A[e0, e1]` of a flat-addressed parameter (one index per dimension): the offset's
        name, the test that computes it and holds for a Python int inside the buffer, and the
        index for the general path otherwise (a numpy integer, a tuple from `allo.grid`, an
        offset outside the buffer: `values.address` decides, as for any array)."""
        if not isinstance(node.value, ast.Name) or node.value.id not in self.flat_arrays:
            return None
        shape, _ = self.flat_arrays[node.value.id]
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) != len(shape) or any(isinstance(i, (ast.Slice, ast.Starred)) for i in items):
            return None
        n = next(self._temps)
        names = [f"__i{n}_{k}" for k in range(len(items))]
        built = self._index_items(node) or [self.visit(item) for item in items]
        offset = ast.NamedExpr(ast.Name(names[0], ast.Store()), built[0])
        for name, item, dim in zip(names[1:], built[1:], shape[1:]):
            offset = _template(f"OFFSET * {dim} + (__x := ITEM)", OFFSET=offset, ITEM=item)
            offset.right.target.id = name
        size = 1
        for dim in shape:
            size *= dim
        checked = _template(f"(__o{n} := OFFSET).__class__ is __ref_int and 0 <= __o{n} < {size}", OFFSET=offset)
        index = _template(f"({', '.join(names)},)" if len(names) > 1 else names[0])
        return ast.Name(f"__o{n}", ast.Load()), checked, index

    def _subscript_index(self, node: ast.Subscript) -> ast.expr:
        """`node`'s index as a value: an array element's as Allo's `build_indices` builds it, a
        bit access's as `build_bit_operation` and Allo's LowerBitOps pass lower it."""
        bits = self._bit_index(node)
        if bits is not None:
            return bits
        items = self._index_items(node)
        if items is None:
            return self._index(node.slice)
        if isinstance(node.slice, ast.Tuple):
            return ast.copy_location(ast.Tuple(items, ast.Load()), node.slice)
        return items[0]

    def _bit_index(self, node: ast.Subscript) -> ast.expr | None:
        """`x[i]` or `x[lo:hi]` of a typed integer `x`: the index checked as LowerBitOps shifts
        by it in `x`'s width (a bit at or past the width, a slice reaching past it, is poison);
        an index that is no name, constant or arithmetic builds nothing in `build_bit_operation`
        (refused by name)."""
        if self.types is None or self._constant:
            return None
        base = self._ty(node.value)
        if base is None or base.kind not in ("int", "uint"):
            return None
        index, line, width = node.slice, node.lineno, base.bits
        if isinstance(index, ast.Slice):
            if index.step is not None or index.lower is None or index.upper is None:
                return None
            lower, upper = self.visit(index.lower), self.visit(index.upper)
            return _template(f"__ref_bits(LO, HI, {width}, '{base}', {line})", LO=lower, HI=upper)
        if not isinstance(index, (ast.Constant, ast.Name, ast.BinOp)):
            raise Unsupported(
                f"a bit index that is no name, constant or arithmetic ({ast.unparse(index)})",
                line,
                f"the bit index {ast.unparse(index)} (line {line}) is no name, constant or arithmetic: Allo's "
                "build_bit_operation builds no operation for it, so the reference executor gives no value; "
                "compute the index into a local first",
            )
        return _template(f"__ref_bit(I, {width}, '{base}', {line})", I=self.visit(index))

    def _index_items(self, node: ast.Subscript) -> list[ast.expr] | None:
        """An array element's indices as Allo's `build_indices` builds them, None where the
        subscript is no typed array element (a bit access, a slice, a stream). When every index
        is affine (`build_affine_expr`: affine loop variables, Python ints and constants through
        arithmetic), they form an affine map, whose `%` and `/`/`//` are floor modulo and floor
        division (`A[(i - 1) % 4]` at i = 0 is A[3]); otherwise each is cast to `index`
        (`build_cast_op`: `IndexCastOp` sign-extends, so a uint8 200 is -56 there)."""
        if self.types is None or self._constant:
            return None
        base = self.types.of(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base is None or not base.shape or any(isinstance(i, (ast.Slice, ast.Starred)) for i in items):
            return None
        if all(self._affine(item) for item in items):
            return [ast.copy_location(self._affine_code(item), item) for item in items]
        built = []
        for item in items:
            ty = self._ty(item)
            code = self.visit(item)
            if ty is not None:
                code = self._ops.index_cast(code, ty, self.types._is_i1(item) is True, item)
            built.append(code)
        return built

    def _affine(self, node: ast.expr) -> bool:
        """Does `build_affine_expr` make `node` an affine expression?"""
        if isinstance(node, ast.Name):
            if node.id in self._affine_loops or node.id in self.types._python_ints:
                return True
            return node.id not in self._bound and type(self.types.env.constants.get(node.id)) is int
        if isinstance(node, ast.BinOp):
            return self._affine(node.left) and self._affine(node.right)
        return isinstance(node, ast.Constant) and type(node.value) is int

    def _affine_code(self, node: ast.expr) -> ast.expr:
        """An affine index as Python: exact, with floor division and floor modulo."""
        if not isinstance(node, ast.BinOp):
            return ast.Name(node.id, ast.Load()) if isinstance(node, ast.Name) else node
        a, b = self._affine_code(node.left), self._affine_code(node.right)
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            return _template(f"(A) {self._ops.symbol(node.op)} (B)", A=a, B=b)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            helper = "__ref_amod" if isinstance(node.op, ast.Mod) else "__ref_adiv"
            return _template(f"{helper}(A, B, {node.lineno})", A=a, B=b)
        raise Unsupported(
            f"`{self._ops.symbol(node.op)}` in an affine array index",
            node.lineno,
            f"`{self._ops.symbol(node.op)}` in an array index of loop variables and constants (line "
            f"{node.lineno}) is no affine expression: Allo's build_affine_expr combines MLIR AffineExprs, "
            "which have no such operation, so the reference executor gives no value; compute the index into "
            "a typed local first",
        )

    def visit_For(self, node: ast.For):
        """A loop over `range`/`allo.grid` whose bounds are affine and step a constant is an
        `affine.for` (`build_single_for`): its variables are affine map dimensions in indices."""
        if self.types is None:
            return self.generic_visit(node)
        names = [
            t.id
            for t in (node.target.elts if isinstance(node.target, ast.Tuple) else [node.target])
            if isinstance(t, ast.Name)
        ]
        outer = set(self._affine_loops)
        affine = self._affine_loop(node.iter)
        bounds = self._loop_bounds(node.iter, affine)
        if bounds is not None:
            node.iter.args = []  # written once, above: not visited again with the loop
        if affine:
            self._affine_loops.update(names)
        else:
            self._affine_loops.difference_update(names)
        try:
            node = self.generic_visit(node)
        finally:
            self._affine_loops = outer
        if bounds is not None:
            node.iter.args = bounds
            if len(bounds) == 3 and self._runtime_step(node.iter):
                node.iter = _ref_call("scf_range", *bounds, ast.Constant(node.lineno))
        return node

    def _runtime_step(self, call: ast.Call) -> bool:
        """`range(a, b, s)` whose step is known only when the kernel runs: an `scf.for` of it."""
        func = call.func
        return (
            isinstance(func, ast.Name)
            and func.id == "range"
            and not isinstance(fold(call.args[2], self._int_constants()), int)
        )

    def _loop_bounds(self, call: ast.expr, affine: bool) -> list[ast.expr] | None:
        """A `range`'s bounds as Allo builds them: an affine loop's as affine maps (floor
        division and modulo), an `scf.for`'s each cast to `index` (`build_single_for`:
        `IndexCastOp` sign-extends, so `range(n)` of a uint8 200 runs no iteration)."""
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        func = call.func
        if isinstance(func, ast.Name) and func.id == "range":
            if not 1 <= len(call.args) <= 3:
                return None
        elif isinstance(func, ast.Attribute) and func.attr in ("grid", "reduction"):
            if not (isinstance(func.value, ast.Name) and self.is_allo(func.value.id)):
                return None
            return [self._grid_bound(arg) for arg in call.args]
        else:
            return None
        bounds = []
        for k, arg in enumerate(call.args):
            if affine and k < 2:
                bounds.append(ast.copy_location(self._affine_code(arg), arg))
                continue
            ty = self._ty(arg)
            code = self.visit(arg)
            if ty is not None and not (affine and k == 2):
                code = self._ops.index_cast(code, ty, self.types._is_i1(arg) is True, arg)
            bounds.append(code)
        return bounds

    def _affine_loop(self, call: ast.expr) -> bool:
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            return False
        func = call.func
        if isinstance(func, ast.Name) and func.id == "range":
            if not 1 <= len(call.args) <= 3:
                return False
            bounds, step = call.args[:2], call.args[2:]
            if step and not isinstance(fold(step[0], self._int_constants()), int):
                return False
        elif isinstance(func, ast.Attribute) and func.attr in ("grid", "reduction"):
            if not (isinstance(func.value, ast.Name) and self.is_allo(func.value.id)):
                return False
            bounds = call.args
        else:
            return False
        return all(self._affine(b) for b in bounds)

    def _grid_bound(self, arg: ast.expr) -> ast.expr:
        """One `allo.grid` bound: its own loop's (`build_all_for` builds one loop per bound)."""
        if self._affine(arg):
            return ast.copy_location(self._affine_code(arg), arg)
        ty, code = self._ty(arg), self.visit(arg)
        return code if ty is None else self._ops.index_cast(code, ty, self.types._is_i1(arg) is True, arg)

    def _int_constants(self) -> dict:
        return {k: v for k, v in self.types.env.constants.items() if type(v) is int}

    def _index(self, index: ast.expr) -> ast.expr:
        """A subscript's index as a value: slices become `slice(...)`."""
        if isinstance(index, ast.Tuple):
            return ast.copy_location(ast.Tuple([self._index(e) for e in index.elts], ast.Load()), index)
        if isinstance(index, ast.Slice):
            parts = [
                self.visit(p) if p is not None else ast.Constant(None) for p in (index.lower, index.upper, index.step)
            ]
            return ast.copy_location(_ref_call("slice", *parts), index)
        return self.visit(index)

    def visit_Call(self, node: ast.Call):
        if self.suspends:
            op = self._stream_call(node, _SUSPENDING) or self._stream_call(node, _POLLING)
            if op is not None:
                return self._stream_operation(op, node)
        typed = self._typed_call(node)
        if typed is not None:
            return ast.copy_location(typed, node)
        helper = self._helpers.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if helper is not None and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args):
            # A plain function Allo builds typed (`build_Call`): its body computes in its own
            # types, the result takes the return type (`build_Return`); its arguments are
            # passed uncast, so each must be of its parameter's MLIR type.
            self._ops.check_call(node, self._ops.signature(helper)[0], self.types)
            args = [self.visit(a) for a in node.args]
            name = ast.Name(node.func.id, ast.Load())
            return ast.copy_location(ast.Call(_ref_call("helper", name, ast.Constant(node.lineno)), args, []), node)
        res = self._ty(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _VALUE_METHODS and not node.args and not node.keywords:
            # `(A[i]).reverse()`, `x.bitcast()`: Allo's methods on values (lists keep theirs), in
            # the operand's Allo type where it is typed (its width is the type's, whatever the
            # value carries), else in the width the value carries.
            src = self._ty(func.value)
            value = self.visit(func.value)
            if src is not None and res is not None:
                kind = ast.Constant(src.kind)
                bits, line = ast.Constant(src.bits), ast.Constant(node.lineno)
                call = _ref_call("typed_method", ast.Constant(func.attr), value, kind, bits, line)
            else:
                call = _ref_call("method", ast.Constant(func.attr), value, ast.Constant(node.lineno))
            return ast.copy_location(call, node)
        library = _LIBRARY_OPERATORS.get(func.attr) if isinstance(func, ast.Attribute) else None
        array = None
        if library is not None and isinstance(func.value, ast.Name) and self.is_allo(func.value.id):
            array = self._array_operation(node, *node.args) if len(node.args) == 2 and not node.keywords else None
        node = self.generic_visit(node)
        if array is not None:  # `allo.add(a, b)`: the linalg op in the first argument's type
            return self._elementwise(node, library, array, *node.args)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "range":
            node.keywords = [k for k in node.keywords if k.arg != "name"]  # `range(N, name="i")`
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and self.is_allo(func.value.id):
            call = ast.Call(
                _ref_call("allo", ast.Constant(func.attr), ast.Constant(node.lineno)), node.args, node.keywords
            )
            if func.attr in _COLLECTIVE:
                if not self.suspends:
                    raise Unsupported(f"{func.value.id}.{func.attr} outside a kernel", node.lineno)
                self._refuse_nested(node)
                for arg in node.args:
                    self._note(arg, "put" if func.attr == "scatter" else "get")
                call = ast.YieldFrom(call)
            elif res is not None and res.cls == "float":
                call = _template(f"{self._ops._float_name(res)}(E)", E=call)  # `allo.exp(x)`: x's type
            return ast.copy_location(call, node)
        callee = func
        if isinstance(func, ast.Call) and _is_ref_call(func, "load") and isinstance(func.args[0], ast.Name):
            callee = func.args[0]  # `inner[2, 2](...)`, rewritten to `__ref.load(inner, (2, 2))(...)`
        if isinstance(callee, ast.Name) and self.is_region(callee.id):
            generic = func.args[1] if isinstance(func, ast.Call) else ast.Constant(None)
            call = ast.Call(_ref_call("region", ast.Name(callee.id, ast.Load()), generic), node.args, node.keywords)
            if self.suspends:
                self._refuse_nested(node)
                call = ast.YieldFrom(call)  # the calling PE waits while the region's PEs run
            return ast.copy_location(call, node)
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            base = _base_name(arg)
            if base is not None and self.is_stream(base):
                raise Unsupported(
                    f"passing stream '{base}' to {ast.unparse(node.func)}() (a helper function "
                    "cannot wait on a FIFO; put and get in the kernel's own body)",
                    node.lineno,
                )
        return node

    def _stream_operation(self, op: str, node: ast.Call) -> ast.expr:
        """A stream operation as an expression: inline when the FIFO allows it, else suspending."""
        if op == "put":
            raise Unsupported("a stream put used as a value (put is a statement)", node.lineno)
        self._refuse_nested(node)
        n = next(self._temps)
        stream = self.visit(node.func.value)
        args = [self.visit(a) for a in node.args]
        self._note(node.func.value, "put" if op == "try_put" else "get")
        if op == "get":
            src = (
                f"(__t{n} if (__t{n} := (__f{n} := STREAM).get_now()) is not __ref_EMPTY "
                f"else (yield from __f{n}.wait_get({node.lineno})))"
            )
        elif op == "try_get":
            src = f"(__t{n} if (__t{n} := (__f{n} := STREAM).try_get())[1] else (yield from __f{n}.polled(__t{n})))"
        elif op == "try_put":
            src = f"((__f{n} := STREAM).try_put(VALUE) or (yield from __f{n}.polled(False)))"
        else:  # empty, full
            src = f"((__f{n} := STREAM).{op}() and (yield from __f{n}.polled(True)))"
        return ast.copy_location(_template(src, STREAM=stream, VALUE=args[0] if args else None), node)


def asks_widths(fdef: ast.FunctionDef) -> bool:
    """Does this kernel call `.reverse()`/`.bitcast()`, which need a value's Allo width? Only
    then do its integers carry their width (`types.sized`); elsewhere they are plain ints."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in _VALUE_METHODS
        and not n.args
        and not n.keywords
        for n in ast.walk(fdef)
    )


def _base_name(node: ast.expr) -> str | None:
    """`fifo` of `fifo`, `fifo[i, j]`, `fifo[:]`."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


_LIBRARY_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/"}  # Allo's element-wise library ops


def _ref_call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(REF, ast.Load()), name, ast.Load()), list(args), [])


def _is_ref_call(node: ast.Call, name: str) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == name
        and isinstance(func.value, ast.Name)
        and func.value.id == REF
    )


def _load(node: ast.expr) -> ast.expr:
    """The same expression in load context (a fresh copy)."""
    copy = ast.parse(ast.unparse(node), mode="eval").body
    for sub in ast.walk(copy):
        ast.copy_location(sub, node)
    return copy


def _store_ctx(node: ast.expr) -> ast.expr:
    """The same expression as an assignment target."""
    copy = _load(node)
    if hasattr(copy, "ctx"):
        copy.ctx = ast.Store()
    return copy
