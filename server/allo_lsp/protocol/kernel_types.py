"""The Allo type of every expression of a kernel body, as Allo's type inference gives it
(`allo/ir/infer.py`, `TypeInferer`), with the build errors it raises on the way.

Works on the standard library's `ast` of one kernel (`ast.FunctionDef`), so the analysis (hovers,
inlay hints, build errors, pitfalls) and the reference executor (which computes in these types)
share it; nothing runs. What the caller knows of the world comes in an `Environment`: the
kernel's parameters, the module's constants, the region's streams, how to read an annotation.
A name or call this module cannot type is left untyped (None), never guessed.

Allo's rules that surprise, each mirrored where it is applied:
- an untyped local takes the type of its first assignment; later assignments are cast to it;
- names are block scoped: one bound inside an `if`, `for`, `while` or `with allo.meta_*` body is
  unknown after it (`ASTContext.block_scope_guard`; `Unsupported Name` at the build);
- loop variables are `index`; a module-level int constant is `int32`, a float one `float32`;
  `get_pid()` values are module-level ints (`visit_Assign`'s special case), so `int32` too;
- a comparison is typed by its operands' common type, not `bool` (`visit_Compare`), but built as
  an `i1` (`build_Compare`) that every cast treats as a value of that type (`build_cast_op`): a
  widening from a signed type sign-extends it (true is -1), and where no cast is emitted the `i1`
  meets a store or an operation of the wider type, which MLIR's verifier refuses
  (`typing_rules.flag_cast`); a condition (`if`, `while`, `x if c else y`, `not`, `and`/`or`) is
  built as it is, so it must be an `i1` (a comparison, a bit, a `bool`);
- a bit get `x[i]` is `UInt(1)`; a bit slice `x[lo:hi]` is `UInt(hi - lo)` when the difference is
  a number symbolically, every name a symbol (`visit_symbol`), else `UInt(32)` with Allo's
  warning `Cannot infer the bitwidth of the slice` (`x[0:N]` with a module-level `N` is that case);
- a chained comparison `a < b < c` does not build (`visit_Compare` asserts one comparator), except
  in a meta construct's condition, which Allo evaluates in Python;
- `x.reverse()` is `x`'s type (integers only: `Can only reverse integers`); `x.bitcast()` of an
  Int/UInt of 16, 32 or 64 bits is float16/32/64 (another width: `Unsupported bitwidth N`), of
  any other type `UInt` of its width;
- a stream get is stored as it is (`build_assign_stmt` casts no `StreamGetOp`): into a local or
  an array element of another MLIR type it is a store the verifier refuses when `df.build`
  canonicalizes the module; a put's value of another type is converted by the simulator only
  between integers (`_process_function_streams`), any other pair is a store it refuses there;
- an augmented assignment `x op= v` is typed as `x op v` (`visit_AugAssign`), then cast to `x`;
  its `x` must be a symbol the body bound (`Variable x not defined in current scope.`);
- an assignment broadcasts its value's shape to the target's, which must come out unchanged
  (`visit_broadcast`: an array into a scalar does not build), a list literal has exactly the
  declared shape, and an array takes at most as many indices as it has dimensions; what the type
  inference has no case for (`break`, a lambda, `for v in a`, `a.shape`, ...), a loop variable or a
  declaration reusing a symbol, and a name bound nowhere stop the build too (the forms and their
  messages: `protocol/build_errors.py`);
- `float(x)` is `float32`, `int(x)` `int32`, `min`/`max` the select rule (of an `index` result,
  two loop variables, it does not build: `build_Call` has no such min/max); another builtin
  (`abs`, `round`, ...) does not build (`Unsupported function call`); an `allo.*` function of
  scalars (`allo.exp(x)`) has its first argument's type.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from allo_lsp.protocol import build_errors as forms
from allo_lsp.protocol.constant_fold import fold
from allo_lsp.protocol.kernel_model import (
    _BINOPS,
    INTEGERS,
    VERIFIER,
    Environment,
    Problem,
    Value,
    difference,
    is_allo_call,
    is_constexpr,
    is_meta_call,
    is_none,
    is_pid_call,
    known_shape,
    negated_array,
    no_cast,
    one_bit,
    operation_of,
    slice_shape,
    stream_name,
)
from allo_lsp.protocol.meta_branches import untaken_lines
from allo_lsp.protocol.typing_rules import (
    BOOL,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INDEX,
    INT32,
    Int,
    Ty,
    TypingError,
    UInt,
    binary,
    flag_cast,
    literal_type,
    mlir_name,
    result_type,
    unary_type,
)

SLICE_WARNING = "Cannot infer the bitwidth of the slice, use UInt(32) as default"
CHAINED_COMPARISON = "Only support one comparator for now"  # `visit_Compare`'s assertion
# The operators `build_general_binop` builds on arrays (linalg add/sub/mul/div); another fails
# `build_library_op`'s `assert attr is not None`, an AssertionError with no message.
_ARRAY_BINOPS = ("+", "-", "*", "/")
ARRAY_OPERATOR = "AssertionError: `{}` of an array (Allo builds only +, -, * and / of arrays)"
_LIBRARY_BINARY = ("add", "sub", "mul", "div")
_LIBRARY_UNARY = ("exp", "softmax", "abs", "log", "relu", "copy")


class KernelTypes:
    """Types `fn`'s body. `of(node)` is an expression's Value (None: not typed), `locals` each
    untyped local's inferred type by its first binding node, `problems` what Allo would say."""

    def __init__(self, fn: ast.FunctionDef, env: Environment) -> None:
        self.env = env
        self._types: dict[int, Value] = {}
        self.locals: dict[int, tuple[ast.Name, Value]] = {}  # first bindings of untyped locals
        self.problems: list[Problem] = []
        self._scopes: list[dict[str, Value]] = [dict(env.params)]
        self._closed: set[str] = set()  # names whose block has ended
        self._declared: set[str] = set()  # names annotated with a type not read here: never blamed
        # Names Allo's builder reads as Python ints (`ctx.global_vars`): get_pid() values and
        # unrolled meta_for variables, built as i32 constants whatever their type here.
        self._python_ints: set[str] = set()
        self._loop_variables: set[str] = set()  # a `for` loop's: an affine map's dimensions
        self._compile_time = False  # inside arguments Allo evaluates in Python (a meta construct's)
        # A global NumPy array as the whole value of an assignment to a name, or the array of its
        # subscript (`x: int32[4] = W[pid]`), is a constant tensor (`visit_assignment_val`), not
        # read by visit_Name; into an element (`r[0] = W[1]`) it is (`visit_Assign`'s other branch).
        self._tensor_sources = {
            id(base)
            for stmt in ast.walk(fn)
            if isinstance(stmt, ast.AnnAssign)
            or (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name))
            if stmt.value is not None
            for base in (stmt.value.value if isinstance(stmt.value, ast.Subscript) else stmt.value,)
            if isinstance(base, ast.Name) and base.id in env.arrays
        }
        # Comparisons (and what passes their value on uncast) whose MLIR value is an `i1` while
        # Allo types them wider (`visit_Compare`): `typing_rules.flag_cast` says what a cast of
        # one builds. `_wide` holds `a and b` of operands that are no `i1`: `andi` of theirs.
        self._flags: set[int] = set()
        self._wide: dict[int, str] = {}  # `and`/`or` node -> its operands' MLIR type
        # Names also bound by unpacking a call (`v, ok = s.try_get()`, an executor's stream
        # method, not Allo a098603f's): a value this typing does not follow, so their MLIR type
        # is not judged where a condition needs an `i1` (the loop's test comes before the call).
        self._unsure = {
            n.id
            for a in ast.walk(fn)
            if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call) and not is_pid_call(a.value, env)
            for t in a.targets
            if isinstance(t, ast.Tuple)
            for n in t.elts
            if isinstance(n, ast.Name)
        }
        # Parameters with a layout: their shape here is the global one, not the PE's share.
        self._sharded = forms.sharded_params(fn)
        self._assigned = forms.assigned_names(fn)  # bound by a statement other than `x op= v`
        self._unvisited_lists = forms.unvisited_lists(fn)  # constant tensors, call arguments
        self._refused_statement = 0  # an expression statement already refused (its value is not again)
        self._returns_nothing = fn.returns is None or is_none(fn.returns)  # a kernel: no `-> T`
        self._last_statement = id(fn.body[-1]) if fn.body else 0  # the one place a `return` builds
        self._block(fn.body)
        self.untaken: set[int] = set()  # lines of meta branch bodies no PE takes: not Allo's problems
        if env.mapping:
            is_meta = lambda call, name: is_allo_call(call, name, env)  # noqa: E731
            self.untaken = untaken_lines(fn, env.mapping, env.constants, is_meta)
            self.problems = [p for p in self.problems if getattr(p.node, "lineno", None) not in self.untaken]

    def of(self, node: ast.AST) -> Value | None:
        return self._types.get(id(node))

    # -- scopes --------------------------------------------------------------------------

    def _lookup(self, name: str) -> Value | None:
        for scope in reversed(self._scopes):
            if name in scope:
                return scope[name]
        return None

    def _block(self, stmts: list[ast.stmt], scoped: bool = False) -> None:
        if scoped:
            self._scopes.append({})
        for stmt in stmts:
            self._statement(stmt)
        if scoped:
            self._closed |= set(self._scopes.pop()) - {n for s in self._scopes for n in s}

    # -- statements ----------------------------------------------------------------------

    def _statement(self, node: ast.stmt) -> None:
        if not isinstance(node, forms.STATEMENTS):  # `break`, `assert`, `try`, ...
            self._refuse(forms.head(node), forms.unsupported_node(node))
            return
        if isinstance(node, ast.AnnAssign):
            declared = self.env.annotation(node.annotation)
            # `x: ConstExpr[int32] = v`: Allo evaluates `v` in Python (`ASTResolver.resolve`)
            outer, self._compile_time = self._compile_time, self._compile_time or is_constexpr(node.annotation)
            value = self._expr(node.value) if node.value is not None else None
            self._compile_time = outer
            if isinstance(node.target, ast.Name) and declared is not None:
                self._redeclared(node, declared)
                self._shape_into(node.value, declared, value, node.target)
                self._list_into(node.value, declared)
                self._tensor_into(node.value, declared)
                self._scopes[-1].setdefault(node.target.id, declared)
                self._set(node.target, declared)
                self._stored_get(node.target, node.value)
                if node.value is not None and not declared.shape:
                    self._flag_cast(node.value, declared.ty, "affine.store")
            elif isinstance(node.target, ast.Name):  # declared, of a type not known here
                self._declared.add(node.target.id)
            else:  # `a[0]: int32 = 1`
                self._refuse(node.target, forms.ANNOTATED_TARGET)
        elif isinstance(node, ast.Assign):
            self._assign(node)
        elif isinstance(node, ast.AugAssign):
            value = self._expr(node.value)
            if isinstance(node.target, ast.Attribute):  # `a.x += 1`: Allo visits no such target
                self._refuse(node.target, forms.AUGMENTED_TARGET)
                return
            target = self._expr(node.target)
            if isinstance(node.target, ast.Name) and self._lookup(node.target.id) is None:
                self._augmented_unbound(node.target)
            if target is not None and value is not None:
                # `x op= v` is typed as `x op v` (`visit_AugAssign`); the executor computes it so.
                result = self._set(node, self._binary(node, node.op, target, value))
                if result is not None:
                    self._flag_cast(node.value, result.ty, operation_of(node.op, result.ty))
        elif isinstance(node, ast.For):
            if node.orelse or forms.loop_error(node.iter) is not None:  # `visit_For` stops before the loop
                refused = (forms.head(node), forms.FOR_ELSE) if node.orelse else (node.iter, forms.FOR_LOOP)
                self._refuse(*refused)
                self._block(node.body, scoped=True)  # typed still (hovers), its targets unbound
                return
            if forms.range_error(node.iter) is not None:  # `build_single_for`
                self._refuse(node.iter, forms.range_error(node.iter))
            self._expr(node.iter)
            self._scopes.append({})
            for target in node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]:
                if isinstance(target, ast.Name):
                    self._new_iterator(target)
                    self._scopes[-1][target.id] = Value(INDEX)
                    self._set(target, Value(INDEX))
                    self._loop_variables.add(target.id)
            self._block(node.body)
            self._closed |= set(self._scopes.pop())
            self._block(node.orelse, scoped=True)
        elif isinstance(node, (ast.If, ast.While)):
            self._expr(node.test)
            self._condition(node.test, "scf.if" if isinstance(node, ast.If) else "scf.condition")
            self._block(node.body, scoped=True)
            if isinstance(node, ast.While) and node.orelse:
                self._refuse(forms.head(node), forms.WHILE_ELSE)
            self._block(node.orelse, scoped=True)
        elif isinstance(node, ast.With):
            for item in node.items:
                # A meta construct's arguments are Python's (`ASTResolver.resolve_constant`).
                outer, self._compile_time = self._compile_time, is_meta_call(item.context_expr, self.env)
                self._expr(item.context_expr)
                self._compile_time = outer
            self._scopes.append({})
            for item in node.items:  # `with allo.meta_for(n) as i:` binds an index
                if isinstance(item.optional_vars, ast.Name):
                    self._scopes[-1][item.optional_vars.id] = Value(INDEX)
                    self._python_ints.add(item.optional_vars.id)
            self._block(node.body)
            self._closed |= set(self._scopes.pop())
        elif isinstance(node, ast.Expr) and forms.expression_statement_error(node) is not None:
            self._refuse(node, forms.expression_statement_error(node))
            self._refused_statement = id(node.value)  # Allo stops at the statement: one problem
            self._expr(node.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            pass  # a docstring, `...`: `visit_Expr` visits no constant statement
        elif isinstance(node, (ast.Expr, ast.Return)) and node.value is not None:
            self._expr(node.value)
            if isinstance(node, ast.Return) and self._returns_nothing and not is_none(node.value):
                # `build_Return` of a value in a function whose signature returns nothing
                self._refuse(node, "Return value should have a dtype in function signature")
        if isinstance(node, ast.Return) and id(node) != self._last_statement:
            self._refuse(node, forms.EARLY_RETURN)

    def _assign(self, node: ast.Assign) -> None:
        if is_pid_call(node.value, self.env):
            targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets
            for target in targets:
                if isinstance(target, ast.Name):  # a module-level int of the PE: int32
                    self._scopes[-1][target.id] = Value(INT32)
                    self._set(target, Value(INT32))
                    self._python_ints.add(target.id)
            return
        if len(node.targets) > 1:  # `x = y = 0`
            self._refuse(node, forms.CHAINED_ASSIGNMENT)
            return
        if forms.unpacking_error(node) is not None:  # `x, y = 1, 2, 3`
            self._refuse(node, forms.unpacking_error(node))
            return
        value = self._expr(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                known = self._lookup(target.id)
                self._list_into(node.value, known)
                self._tensor_into(node.value, known)
                if known is None and value is not None:
                    self._scopes[-1][target.id] = value
                    self.locals[id(target)] = (target, value)
                    self._set(target, value)
                elif known is not None:
                    self._set(target, known)
                    self._shape_into(node.value, known, value, target)
            else:
                stored = self._expr(target)
                if stored is not None:
                    self._shape_into(node.value, stored, value, target)
            self._stored_get(target, node.value)
            self._flag_store(target, node.value)

    # -- forms and shapes Allo refuses (`protocol/build_errors.py`) ----------------------

    def _refuse(self, node: ast.AST, message: str, kind: str = "construct") -> None:
        self.problems.append(Problem(node, message, True, kind=kind))

    def _shape_into(self, value: ast.expr | None, target: Value, got: Value | None, at: ast.expr) -> None:
        """`target = value`: the value's shape broadcast to the target's (`visit_Assign`,
        `visit_AnnAssign`: `visit_broadcast(..., match_lhs=True)`): `x: int32 = a` of an array,
        `r[0] = s.get()` of a stream of blocks, `t: int32[2] = a` of an `int32[4]`."""
        if value is None or got is None or not known_shape(target.shape) or not known_shape(got.shape):
            return
        if self._shares(value) or self._shares(at):
            return  # a PE's share of an array: its shape is not the one typed here
        _, message = forms.broadcast(target.shape, got.shape, match_lhs=True)
        if message is not None:
            self._refuse(at if isinstance(at, ast.Subscript) else value, message, kind="shape")

    def _augmented_unbound(self, target: ast.Name) -> None:
        """`acc += v` of a name no statement of the body binds (`acc: int32 = 0` forgotten):
        `visit_AugAssign` looks the target up among the symbols only (`ASTContext.get_symbol`),
        so a module-level constant is none either; but a number of the world here may be a region's
        scalar parameter (a symbol), so only a name of no value is judged."""
        if self._compile_time or target.id in self.env.streams or target.id in self._declared:
            return
        if target.id in self.env.constants:
            return
        if target.id not in self._assigned:
            message = f"Variable {target.id} not defined in current scope."
            self._refuse(target, message, kind="undefined")

    def _list_into(self, value: ast.expr | None, target: Value | None) -> None:
        """A list literal assigned to a name (`visit_assignment_val`): of the declared shape."""
        if not isinstance(value, ast.List) or self._compile_time:
            return
        if target is not None and not known_shape(target.shape):
            return
        message = forms.literal_error(None if target is None else tuple(target.shape), value)
        if message is not None:
            self._refuse(value, message, kind="construct" if message == forms.LIST_WITHOUT_TYPE else "shape")

    def _tensor_into(self, value: ast.expr | None, target: Value | None) -> None:
        """A global NumPy array assigned whole to a name (`visit_assignment_val`): a constant
        tensor of the target's declared type, of exactly its shape."""
        if not isinstance(value, ast.Name) or value.id not in self.env.arrays or self._compile_time:
            return
        got = self.env.array_shapes.get(value.id)
        if target is None:
            self._refuse(value, forms.TENSOR_WITHOUT_TYPE)
        elif got is not None and known_shape(target.shape) and tuple(got) != tuple(target.shape):
            self._refuse(
                value, f"`{value.id}` shape mismatch, got {tuple(got)} and {tuple(target.shape)}", kind="shape"
            )

    def _redeclared(self, node: ast.AnnAssign, declared: Value) -> None:
        """`x: T = v` of a name already bound (`visit_AnnAssign`): an assignment, of the same
        type and shape only, and with a value."""
        name = node.target.id
        known = self._lookup(name)
        if known is None or name in self._python_ints or name in self._sharded:
            return
        if isinstance(node.annotation, ast.BinOp):
            return  # `T @ Stateful`, `T @ layout`: Allo compares more than the type here
        if node.value is None:
            self._refuse(node, forms.ANNOTATED_WITHOUT_VALUE, kind="rebound")
        elif known.ty != declared.ty or tuple(known.shape) != tuple(declared.shape):
            self._refuse(node.target, f"Invalid assignment to {name}, type mismatch.", kind="rebound")

    def _new_iterator(self, target: ast.Name) -> None:
        """A loop variable may not name a symbol in scope (`visit_all_for` asserts it): a
        parameter, the region's, a local of an enclosing block, an enclosing loop's variable, a
        stream. `get_pid()` values and `meta_for` variables are Python's (`ctx.global_vars`): no symbol."""
        if target.id in self._python_ints:
            return
        if self._lookup(target.id) is not None or target.id in self.env.streams or target.id in self.env.region_params:
            self._refuse(target, forms.LOOP_ITERATOR, kind="rebound")

    # -- stream values stored as they are ----------------------------------------------

    def _stored_get(self, target: ast.expr, value: ast.expr | None) -> None:
        """`x = s.get()`, `b[i] = s.get()`: the get is stored without a cast, so a scalar target
        of another MLIR type is an `affine.store` (`memref.store` at an index that is not affine)
        the verifier refuses when `_build_top` canonicalizes the module."""
        got = self._stream_get(value)
        stored = self.of(target)
        if got is None or stored is None or got.shape or stored.shape or mlir_name(got.ty) == mlir_name(stored.ty):
            return
        if isinstance(target, ast.Subscript):
            base = self.of(target.value)
            if base is None or not base.shape:
                return  # a bit of an integer set: not a store into memory
            store = "affine.store" if self._affine(target.slice) else "memref.store"
        elif isinstance(target, ast.Name):
            store = "affine.store"
        else:
            return
        self.problems.append(Problem(target, VERIFIER[store], True, "build"))

    def _stream_get(self, value: ast.expr | None) -> Value | None:
        """`value`'s type when it is a stream's `get()` (of a stream whose type is known)."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get"):
            return None
        stream = stream_name(value.func.value, self.env)
        return self.env.streams[stream] if stream is not None else None

    def _put(self, arg: ast.expr, element: Value) -> None:
        """`s.put(v)`: the simulator converts a scalar value of another type only between
        integers (`TruncIOp`/`ExtUIOp`); any other pair is stored as it is, a `memref.store` the
        verifier refuses in `LLVMOMPModule`'s lowering. An array, or a put into a stream of
        blocks, is copied with no conversion at all (`forms.block_put_error`)."""
        value = self.of(arg)
        if value is None or (not value.shape and isinstance(arg, ast.Compare)):
            return  # a comparison is built as i1 whatever its type here
        ty = INT32 if isinstance(arg, ast.Name) and arg.id in self._python_ints else value.ty
        integers = ty.kind in INTEGERS and element.ty.kind in INTEGERS
        if value.shape or element.shape:
            same = mlir_name(ty) == mlir_name(element.ty) or (integers and not value.shape)
            message = forms.block_put_error(same, len(value.shape), len(element.shape))
            if message is not None:
                self.problems.append(Problem(arg, message, True, "simulator", kind="block-put"))
            return
        if mlir_name(ty) == mlir_name(element.ty) or integers:
            return
        self.problems.append(Problem(arg, VERIFIER["memref.store"], True, "simulator"))

    # -- comparisons' `i1`s -----------------------------------------------------------------

    def _flag_cast(self, node: ast.expr, dst: Ty, consumer: str | None) -> None:
        """`node` cast to `dst` for `consumer` (`build_cast_op`): where `node` is a comparison's
        `i1`, the cast chosen by its Allo type may not apply to an `i1`, or be none at all."""
        if id(node) not in self._flags or self._compile_time:
            return
        src = self.of(node)
        if src is None or src.shape:
            return
        message = flag_cast(src.ty, dst, consumer)
        if message is not None:
            self.problems.append(Problem(node, message, True, "build", kind="comparison-value"))

    def _flag_store(self, target: ast.expr, value: ast.expr | None) -> None:
        """`target = value` of a comparison: cast to the target's type, then stored."""
        stored = self.of(target)
        if value is None or stored is None or stored.shape:
            return
        store: str | None
        if isinstance(target, ast.Subscript):
            base = self.of(target.value)
            if base is None:
                return
            # A bit set casts its value to the bit's `UInt(1)` (a slice's `UInt(w)`) for
            # `SetIntBitOp`, which is no store: only the cast itself is judged.
            store = None if not base.shape else "affine.store" if self._affine(target.slice) else "memref.store"
        elif isinstance(target, ast.Name):
            store = "affine.store"
        else:
            return
        self._flag_cast(value, stored.ty, store)

    def _is_i1(self, node: ast.expr) -> bool | None:
        """Is `node`'s MLIR value an `i1` (None: not known)?"""
        if isinstance(node, ast.Compare) or id(node) in self._flags:
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return True
        if isinstance(node, ast.BoolOp):
            return id(node) not in self._wide
        if isinstance(node, ast.Name) and node.id in self._unsure:
            return None
        value = self.of(node)
        if value is None or value.shape:
            return None
        return one_bit(value.ty)

    def _mlir_of(self, node: ast.expr) -> str | None:
        if id(node) in self._wide:
            return self._wide[id(node)]
        if self._is_i1(node):
            return "i1"
        value = self.of(node)
        return mlir_name(value.ty) if value is not None and not value.shape else None

    def _condition(self, node: ast.expr, consumer: str) -> None:
        """`if c`, `while c`, `x if c else y`, `not c`: Allo builds `c` as it is, which must be an
        `i1` (`scf.if`, `scf.condition`, `arith.select`; `build_UnaryOp` checks `not` itself)."""
        if self._compile_time or self._is_i1(node) is not False:
            return
        got = self._mlir_of(node)
        if consumer == "not":
            self.problems.append(
                Problem(node, "The operand of 'not' should be a boolean value", True, kind="condition")
            )
            return
        must = "bool-like" if consumer == "arith.select" else "1-bit signless integer"
        message = f"'{consumer}' op operand #0 must be {must}, but got '{got}'"
        self.problems.append(Problem(node, message, True, "build", kind="condition"))

    def _bool_operands(self, node: ast.BoolOp) -> None:
        """`a and b` is `arith.andi` of the operands as they are (`build_BoolOp`): of one MLIR
        type, an `i1` only where they are."""
        if self._compile_time:
            return
        kinds = [self._mlir_of(v) for v in node.values]
        if None in kinds:
            return
        if len(set(kinds)) > 1:
            op = "arith.andi" if isinstance(node.op, ast.And) else "arith.ori"
            message = f"'{op}' op requires the same type for all operands and results"
            self.problems.append(Problem(node, message, True, "build", kind="condition"))
        elif kinds[0] != "i1":
            self._wide[id(node)] = kinds[0]

    def _affine(self, index: ast.expr) -> bool:
        """Does `build_indices` make `index` an affine map: every name a loop variable or a Python
        int (a constant, a pid, an unrolled meta_for variable), through arithmetic only?"""
        for node in ast.walk(index):
            if isinstance(node, ast.Name):
                if node.id in self._loop_variables or node.id in self._python_ints:
                    continue
                if self._lookup(node.id) is not None or not isinstance(self.env.constants.get(node.id), int):
                    return False
            elif not isinstance(node, (ast.BinOp, ast.Constant, ast.Tuple, ast.Load, ast.operator)):
                return False
        return True

    # -- expressions ---------------------------------------------------------------------

    def _set(self, node: ast.AST, value: Value | None) -> Value | None:
        if value is not None:
            self._types[id(node)] = value
        return value

    def _expr(self, node: ast.expr) -> Value | None:
        return self._set(node, self._infer(node))

    def _infer(self, node: ast.expr) -> Value | None:
        unvisited = isinstance(node, ast.List) and id(node) in self._unvisited_lists
        if isinstance(node, forms.EXPRESSIONS) or (isinstance(node, ast.List) and not unvisited):
            if not self._compile_time and id(node) != self._refused_statement:
                self._refuse(node, forms.unsupported_node(node))
            for child in ast.iter_child_nodes(node):  # typed inside still (hovers, the other rules)
                if isinstance(child, ast.expr):
                    self._expr(child)
            return None
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bytes, complex)) and not self._compile_time:
                self._refuse(node, forms.CONSTANT_TYPE)
            return Value(literal_type(node.value)) if isinstance(node.value, (int, float)) else None
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.BinOp):
            left, right = self._expr(node.left), self._expr(node.right)
            result = self._binary(node, node.op, left, right) if left and right else None
            if result is not None and not result.shape:
                consumer = operation_of(node.op, result.ty)
                rhs = (
                    Int(32) if isinstance(node.op, (ast.LShift, ast.RShift)) and result.ty.cls in _FIXED else result.ty
                )
                self._flag_cast(node.left, result.ty, consumer)
                self._flag_cast(node.right, rhs, consumer)
            return result
        if isinstance(node, ast.UnaryOp):
            operand = self._expr(node.operand)
            if isinstance(node.op, ast.Not):
                self._condition(node.operand, "not")
                return Value(BOOL)
            if operand is not None and operand.shape and isinstance(node.op, ast.USub) and not self._compile_time:
                # `build_UnaryOp` builds the scalar op on the array's memref: the verifier refuses it
                self.problems.append(Problem(node, negated_array(operand), True, "build", kind="operator"))
                return None
            if operand is not None and id(node.operand) in self._flags:
                if isinstance(node.op, ast.USub):  # `0 - x` (`negf`) of the uncast `i1`
                    negated = "arith.negf" if operand.ty.cls == "float" else "arith.subi"
                    self._flag_cast(node.operand, operand.ty, negated)
                else:
                    self._flags.add(id(node))  # `+x`, `~x`: the operand itself
            return Value(unary_type(operand.ty), operand.shape) if operand else None
        if isinstance(node, ast.Compare):
            left = self._expr(node.left)
            rights = [self._expr(c) for c in node.comparators]
            if len(rights) != 1:
                if not self._compile_time:  # `a < b < c`: Python's, where Allo evaluates it
                    self.problems.append(Problem(node, CHAINED_COMPARISON, True))
                return None
            if left is None or rights[0] is None:
                return None
            common = self._typed(node, lambda: Value(result_type("cmp", left.ty, rights[0].ty)))
            if common is not None and not self._compile_time:
                right = node.comparators[0]
                both = id(node.left) in self._flags and id(right) in self._flags and left.ty == rights[0].ty
                if not both:  # two comparisons of one type compare their `i1`s as they are
                    consumer = "arith.cmpf" if common.ty.cls == "float" else "arith.cmpi"
                    self._flag_cast(node.left, common.ty, consumer)
                    self._flag_cast(right, common.ty, consumer)
                if not one_bit(common.ty):
                    self._flags.add(id(node))
            return common
        if isinstance(node, ast.BoolOp):
            for v in node.values:
                self._expr(v)
            self._bool_operands(node)
            return Value(BOOL)
        if isinstance(node, ast.IfExp):
            self._expr(node.test)
            self._condition(node.test, "arith.select")
            body, orelse = self._expr(node.body), self._expr(node.orelse)
            if body is None or orelse is None:
                return None
            result = self._typed(node, lambda: Value(result_type("select", body.ty, orelse.ty), body.shape))
            if result is not None and not result.shape:
                flagged = [id(b) in self._flags for b in (node.body, node.orelse)]
                if all(flagged) and body.ty == orelse.ty == result.ty:
                    self._flags.add(id(node))  # a select of two `i1`s is one
                else:
                    self._flag_cast(node.body, result.ty, "arith.select")
                    self._flag_cast(node.orelse, result.ty, "arith.select")
            return result
        if isinstance(node, ast.Subscript):
            return self._subscript(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expr(child)
        return None

    def _name(self, node: ast.Name) -> Value | None:
        found = self._lookup(node.id)
        if found is not None:
            return found
        if node.id in self.env.streams:
            return None
        constant = self.env.constants.get(node.id)
        if isinstance(constant, bool) or isinstance(constant, int):
            return Value(INT32)
        if isinstance(constant, float):
            return Value(FLOAT32)
        if isinstance(constant, Ty):
            return Value(INDEX)  # `visit_Name`: a global Allo type reads as an index
        if (
            node.id in self.env.foreign
            and id(node) not in self._tensor_sources
            and isinstance(node.ctx, ast.Load)
            and not self._compile_time
        ):
            self._refuse(node, forms.FOREIGN_GLOBAL.format(node.id))
        elif node.id in self._closed and node.id not in self._declared and isinstance(node.ctx, ast.Load):
            self.problems.append(Problem(node, f"Unsupported Name `{node.id}`", True))
        elif node.id in self.env.unbound and isinstance(node.ctx, ast.Load) and not self._compile_time:
            self._refuse(node, forms.UNDEFINED_NAME.format(node.id), kind="undefined")
        return None

    def _typed(self, node: ast.AST, compute: Callable[[], Value]) -> Value | None:
        try:
            return compute()
        except TypingError as exc:
            self.problems.append(Problem(node, str(exc), True))
            return None

    def _binary(self, node: ast.AST, op: ast.operator, left: Value, right: Value) -> Value | None:
        symbol = _BINOPS.get(type(op))
        if symbol is None:
            return None
        shape = self._broadcast(node, left, right)  # `visit_general_binop`
        if shape is None:
            return None
        if shape and symbol not in _ARRAY_BINOPS:
            # `build_general_binop` of arrays maps only these to a linalg op; another is None, and
            # `build_library_op` asserts it is not.
            self._refuse(node, ARRAY_OPERATOR.format(symbol), kind="operator")
            return None
        return self._typed(node, lambda: Value(binary(symbol, left.ty, right.ty)[0], shape))

    def _broadcast(self, node: ast.AST, left: Value, right: Value) -> tuple | None:
        """The shape `visit_broadcast` gives two operands; None (refused) where they do not
        broadcast. A sharded parameter's shape is the global one here, not its PE's share: not
        judged."""
        shape = left.shape or right.shape
        if left.shape and right.shape and known_shape(left.shape) and known_shape(right.shape):
            broadcast, message = forms.broadcast(left.shape, right.shape, match_lhs=False)
            if message is not None and not self._shares(node):
                self._refuse(node, message, kind="shape")
                return None
            shape = broadcast if broadcast is not None else shape
        return shape

    def _shares(self, node: ast.AST) -> bool:
        """`node` reads a parameter with a layout (a PE's share of the array)."""
        return any(isinstance(n, ast.Name) and n.id in self._sharded for n in ast.walk(node))

    def _matmul(self, node: ast.Call, a: Value, b: Value) -> Value | None:
        """`allo.matmul(a, b)`: the first input's type, `a`'s leading dimensions and `b`'s last
        (`visit_library_op`, which asserts that the inner dimensions agree)."""
        known = known_shape(a.shape) and known_shape(b.shape)
        if len(a.shape) < 2 or len(b.shape) < 2 or not known or self._shares(node):
            return None
        if a.shape[-1] != b.shape[-2]:
            message = forms.MATMUL_SHAPES.format(a.shape, b.shape)
            self._refuse(node, message, kind="shape")
            return None
        return Value(a.ty, (*a.shape[:-1], b.shape[-1]))

    def _library(self, node: ast.Call, name: str, args: list[Value | None]) -> Value | None:
        """An element-wise `allo.*` call on an array (`visit_library_op`): the first argument's
        type, and for `add`/`sub`/`mul`/`div` the broadcast shape. Its linalg op has one type
        variable for both inputs and the output, and no cast is built into it: an array of
        another element type is refused by MLIR's Python builder (`_add_type_mapping`)."""
        if name in _LIBRARY_UNARY and len(args) == 1 and args[0] is not None:
            return args[0]
        if name == "matmul" and len(args) == 2 and None not in args:
            return self._matmul(node, *args)
        if name not in _LIBRARY_BINARY or len(args) != 2 or None in args:
            return None
        first, second = args
        if not (first.shape or second.shape):
            return first  # scalars: an element-wise call of the first argument's type
        for arg in args:
            if arg.shape and arg.ty != first.ty:
                message = f"Cannot overwrite type mapping T1 = {mlir_name(first.ty)} by type {mlir_name(arg.ty)}"
                self.problems.append(Problem(node, message, True, kind="operator"))
                return None
        shape = self._broadcast(node, first, second)
        return Value(first.ty, shape) if shape is not None else None

    def _attribute(self, node: ast.Attribute) -> Value | None:
        """`x.T`, `x.copy`, `x.bits` (`visit_Attribute`); another attribute of a typed value
        (`a.shape`) stops the build, and so does one of a module (`np.pi`: `visit_Attribute`
        reads its owner as a value first)."""
        owner = self._expr(node.value)
        if owner is None and isinstance(node.value, ast.Name) and self._module(node.value) and not self._compile_time:
            self._refuse(node.value, forms.FOREIGN_GLOBAL.format(node.value.id))
        if owner is None or self._compile_time:
            return None
        message = forms.attribute_error(node.attr, isinstance(node.value, ast.Name))
        if message is not None:
            self._refuse(node, message)
            return None
        if node.attr == "T":
            return Value(owner.ty, tuple(owner.shape)[::-1])
        if node.attr == "reverse" and owner.ty.kind not in INTEGERS:
            self.problems.append(Problem(node, "Can only reverse integers", True))
            return None
        return owner

    def _slice_bounds(self, node: ast.Subscript, indices: list[ast.expr], shape: tuple) -> None:
        """`build_slices`' refusals of a constant slice (`forms.slice_error`), bounds folded with
        the module's ints; a PE's share of an array has another shape than the one typed here."""
        if self._compile_time or self._shares(node):
            return
        ints = {k: v for k, v in self.env.constants.items() if type(v) is int}
        message = forms.slice_error(indices, shape, lambda bound: fold(bound, ints))
        if message is not None:
            self._refuse(node, message, kind="shape")

    def _module(self, name: ast.Name) -> bool:
        shadowed = self._lookup(name.id) is not None or name.id in self.env.streams or name.id in self.env.region_params
        return name.id in self.env.modules and not shadowed

    def _subscript(self, node: ast.Subscript) -> Value | None:
        base = node.value
        value = None if stream_name(base, self.env) is not None else self._expr(base)
        if value is None:  # an element of a stream array, or something not typed
            if not isinstance(node.slice, ast.Slice):
                # A stream array's index is Python's: Allo evaluates it as it builds
                # (`get_symbolic_expr`), so what it holds is no build error of the kernel.
                outer = self._compile_time
                self._compile_time = outer or stream_name(base, self.env) is not None
                self._expr(node.slice)
                self._compile_time = outer
            return None
        if value.shape:
            indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for index in indices:
                if not isinstance(index, ast.Slice):
                    self._expr(index)
            if any(isinstance(i, ast.Slice) for i in indices):
                for index in indices:
                    if isinstance(index, ast.Slice):
                        for bound in (index.lower, index.upper, index.step):
                            if bound is not None:
                                self._expr(bound)
                self._slice_bounds(node, indices, value.shape)
                single = isinstance(node.slice, ast.Slice) and isinstance(base, ast.Name)  # chained: ADF008's
                if single and len(value.shape) >= 2 and not self._compile_time:
                    # `a[0:2]` of a 2-D array: `visit_Subscript` types it 2-D, and `build_slices`
                    # then reads the dimensions of the one slice (`node.slice.dims`), which it has not.
                    self._refuse(node, forms.SINGLE_SLICE)
                    return None
                shape = slice_shape(indices, value.shape, self.env.constants)
                return Value(value.ty, shape) if shape is not None else None
            if len(indices) > len(value.shape) and isinstance(base, ast.Name) and not self._compile_time:
                # `a[i, j]` of a 1-D array: `visit_Subscript` types it a scalar, and
                # `build_memory_access` writes a load or store of more indices than the memref's
                # rank, which MLIR's verifier refuses when `_build_top` canonicalizes the module.
                message = forms.rank_error(
                    self._affine(node.slice), isinstance(node.ctx, ast.Store), len(value.shape), len(indices)
                )
                self.problems.append(Problem(node, message, True, "build", kind="shape"))
                return None
            return Value(value.ty, tuple(value.shape[len(indices) :]))
        if value.ty.cls not in ("int", "uint"):
            self.problems.append(Problem(node, "Can only access bit (slice) for integers", True))
            return None
        if isinstance(node.slice, ast.Slice):
            for bound in (node.slice.lower, node.slice.upper):
                if bound is not None:
                    self._expr(bound)
            width = difference(node.slice.upper, node.slice.lower)
            if width is None:
                self.problems.append(Problem(node, SLICE_WARNING, False))
                return Value(UInt(32))
            if width <= 0:
                self.problems.append(Problem(node, "upper bound must be greater than lower bound", True))
                return None
            return Value(UInt(width))
        self._expr(node.slice)
        return Value(BOOL)  # one bit: `uint1`

    def _call(self, node: ast.Call) -> Value | None:
        func = node.func
        args = [self._expr(a) for a in node.args]
        if isinstance(func, ast.Attribute):
            stream = stream_name(func.value, self.env)
            if stream is not None:
                if isinstance(func.value, ast.Subscript):
                    self._expr(func.value)
                if func.attr == "put" and len(node.args) == 1:
                    self._put(node.args[0], self.env.streams[stream])
                elif func.attr == "put" and not self._compile_time:
                    # `build_Call`'s assertion; ADF021 reports it from the model's stream uses
                    self._refuse(node, forms.PUT_ARGUMENTS, kind="stream-use")
                return self.env.streams[stream] if func.attr == "get" else None
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in self.env.unbound and self._lookup(owner.id) is None:
                # `foo.bar(x)` of a `foo` bound nowhere: the callee resolves to nothing
                self._refuse(node, forms.UNDEFINED_METHOD.format(func.attr), kind="undefined")
                return None
            if isinstance(owner, ast.Name) and self.env.is_allo(owner.id):
                if args and all(a is not None and not a.shape for a in args):
                    return args[0]  # an element-wise library call: its first argument's type
                return self._library(node, func.attr, args)
            if func.attr in _STREAM_METHODS and isinstance(owner, ast.Subscript) and self._unknown_base(owner):
                # `fifo[i, f(j)].put(v)` of a stream array whose element type is not known here:
                # its index is Python's still (`get_symbolic_expr`), no build error of the kernel
                outer, self._compile_time = self._compile_time, True
                self._expr(owner)
                self._compile_time = outer
                return None
            value = self._expr(owner)
            if func.attr in ("reverse", "T") and value is not None and node.args and not self._compile_time:
                self._refuse(node, "Only support zero argument for attribute methods")  # `visit_Call`
                return None
            if func.attr in _VALUE_METHODS and value is not None and not value.shape and not node.args:
                return self._value_method(node, func.attr, value.ty)
            if value is not None and func.attr not in _METHODS and not self._compile_time:
                # `visit_Call` of a method on a value: `.T`, `.reverse()`, `.bitcast()` only (`a.sum()`)
                self._refuse(node, f"Unsupported function call or attribute method `.{func.attr}`")
            return None
        called = self._type_named(func)
        if called is not None and not self._compile_time:
            # `int8(x)`: Allo resolves the callee to a type, an object of `allo.ir.types`, and
            # takes it for a library function (`visit_Call` reads its `__name__`, which it has not).
            self._refuse(node, f"'{forms.type_class(called)}' object has no attribute '__name__'")
            return None
        if isinstance(func, ast.Name) and self._lookup(func.id) is None and func.id not in self.env.constants:
            if func.id in ("float", "int", "min", "max") and not self._compile_time:
                wanted = 1 if func.id in ("float", "int") else 2  # `visit_Call` asserts the count
                if len(node.args) != wanted:
                    self._refuse(node, forms.BUILTIN_ARITY[func.id])
                    return None
            if func.id in ("float", "int"):
                result = FLOAT32 if func.id == "float" else INT32
                if len(node.args) == 1 and args[0] is not None and id(node.args[0]) in self._flags:
                    if no_cast(args[0].ty, result):
                        self._flags.add(id(node))  # no cast: the call is the comparison's `i1`
                    else:
                        self._flag_cast(node.args[0], result, "func.call")
                return Value(result)
            if func.id in ("min", "max") and len(args) == 2 and all(args):
                value = self._typed(node, lambda: Value(result_type("select", args[0].ty, args[1].ty), args[0].shape))
                if value is not None and not value.shape:
                    if value.ty.cls not in ("int", "uint", "float"):
                        # `build_Call` picks MinSI/MinUI/MinimumF by the result's class: none for an
                        # index or fixed-point one, and `opcls` is then never bound.
                        message = "cannot access local variable 'opcls' where it is not associated with a value"
                        self.problems.append(Problem(node, message, True, kind="operator"))
                        return None
                    consumer = _MINMAX[func.id][value.ty.kind if value.ty.cls != "float" else "float"]
                    for arg in node.args:
                        self._flag_cast(arg, value.ty, consumer)
                return value
            if func.id in self.env.functions:
                return self.env.functions[func.id]
            if func.id in _BUILTINS:
                self.problems.append(Problem(node, f"Unsupported function call {func.id}", True))
            elif func.id in self.env.unbound and not self._compile_time:
                self._refuse(node, forms.UNDEFINED_FUNCTION.format(func.id), kind="undefined")
        return None

    def _unknown_base(self, node: ast.Subscript) -> bool:
        """`node` subscripts a name that is no typed local, parameter or constant here."""
        base = node.value
        while isinstance(base, ast.Subscript):
            base = base.value
        return isinstance(base, ast.Name) and self._lookup(base.id) is None and base.id not in self.env.constants

    def _type_named(self, func: ast.expr) -> Ty | None:
        """The Allo type a callee names (`int8` in `int8(x)`), None for anything else: a local,
        a builtin (`float`, `int`, `bool`: `visit_Call`'s own cases or ADF081's), a function."""
        if not isinstance(func, ast.Name) or self._lookup(func.id) is not None or func.id in forms.BUILTIN_NAMES:
            return None
        named = self.env.constants.get(func.id)
        if isinstance(named, Ty):
            return named
        if func.id in self.env.constants or func.id in self.env.streams:
            return None
        declared = self.env.annotation(func)  # the executor reads the name as an annotation
        return declared.ty if declared is not None and not declared.shape else None

    def _value_method(self, node: ast.Call, name: str, ty: Ty) -> Value | None:
        """`x.reverse()`: the bits of an integer reversed over its width, of its type;
        `x.bitcast()`: an integer's bits as the float of its width, a float's (any other
        type's) as `UInt` of its width (`visit_Attribute`, `visit_Call`)."""
        if name == "reverse":
            if ty.kind in ("int", "uint"):
                return Value(ty)
            self.problems.append(Problem(node, "Can only reverse integers", True))
            return None
        if ty.kind not in ("int", "uint"):
            return Value(UInt(ty.bits))
        if ty.bits in _FLOAT_OF_WIDTH:
            return Value(_FLOAT_OF_WIDTH[ty.bits])
        self.problems.append(Problem(node, f"Unsupported bitwidth {ty.bits}", True))
        return None


_FIXED = ("fixed", "ufixed")
_MINMAX = {
    "min": {"int": "arith.minsi", "uint": "arith.minui", "float": "arith.minimumf"},
    "max": {"int": "arith.maxsi", "uint": "arith.maxui", "float": "arith.maximumf"},
}


_VALUE_METHODS = ("reverse", "bitcast")  # Allo's methods on a scalar value
# Every method `visit_Call` takes on a value (a stream's too: a sub-function's `Stream` parameter
# is typed by its element here).
_STREAM_METHODS = ("put", "get", "try_put", "try_get", "empty", "full")
_METHODS = (*_VALUE_METHODS, "T", *_STREAM_METHODS)
_FLOAT_OF_WIDTH = {16: FLOAT16, 32: FLOAT32, 64: FLOAT64}  # `bitcast` of Int/UInt: IEEE float16 (never bfloat16)

# Python's builtins Allo's `visit_Call` has no case for (a kernel that calls one does not build).
_BUILTINS = frozenset(
    "abs all any bin bool chr divmod enumerate filter format hash hex iter len list map ord pow print "
    "reversed round sorted str sum tuple zip".split()
)
