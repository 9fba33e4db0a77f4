"""What Allo a098603f's front end refuses in a kernel body by its form and its shapes, with
Allo's messages: the statements and expressions `TypeInferer` (`allo/ir/infer.py`) has no visitor
for, the loops it builds, and NumPy-style broadcasting in assignments (`visit_broadcast`).
`kernel_types.py` applies these as it types the body; `docs/allo_build_errors.md` is the
inventory of every build error and where allo-lsp reports it.

Pure: imports nothing but `ast`, so the reference executor (inside the user's interpreter) raises
the same errors at `df.build` that `check` reports.
"""

from __future__ import annotations

import ast
import builtins

# The statements `TypeInferer` (and the `ASTVisitor` it extends) has a `visit_` method for; any
# other stops the build in `ASTVisitor.__call__` with `Unsupported node "<class name>"`: `break`,
# `continue`, `assert`, `raise`, `try`, `del`, `import`, `global`, a class, ...
STATEMENTS = (
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.For,
    ast.While,
    ast.If,
    ast.With,
    ast.Expr,
    ast.Return,
    ast.Pass,
    ast.FunctionDef,
)

# Expressions with no `visit_` method. `ast.List` is left out: Allo reads a list literal as a
# constant tensor where it is an assignment's value (`unvisited_lists`).
EXPRESSIONS = (
    ast.Lambda,
    ast.JoinedStr,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.NamedExpr,
    ast.Set,
    ast.Starred,
    ast.Await,
    ast.Yield,
    ast.YieldFrom,
)


def unsupported_node(node: ast.AST) -> str:
    return f'Unsupported node "{type(node).__name__}"'


FOR_ELSE = "'else' clause for 'for' not supported in Allo kernels"  # `visit_For`
WHILE_ELSE = "'else' clause for 'while' not supported in Allo kernels"  # `visit_While`
FOR_LOOP = "Unsupported for loop"  # `visit_For`: not `range`, `allo.grid` or `allo.reduction`
LOOP_ITERATOR = "Please choose a different name for the loop iterator."  # `visit_all_for`
CHAINED_ASSIGNMENT = "chained assignment not supported"  # `visit_Assign`
ANNOTATED_WITHOUT_VALUE = "Unsupported annotated assignment without a value."  # `visit_AnnAssign`

# Builtins a `for` may not iterate over: `visit_For` resolves the callee in the module's globals
# (where no builtin is) and takes only `range` unresolved, else a function named grid/reduction.
_NOT_LOOPS = frozenset("enumerate zip reversed iter map filter sorted list tuple set dict".split())


def loop_error(iterable: ast.expr) -> str | None:
    """`visit_For`'s refusal of `for x in iterable`, or None. A call of another callee than a
    builtin (`allo.grid`, an alias of it) is let through: its name is not known here."""
    if not isinstance(iterable, ast.Call):
        return FOR_LOOP  # `for v in a:`, `for v in [1, 2]`
    func = iterable.func
    if isinstance(func, ast.Name) and func.id in _NOT_LOOPS:
        return FOR_LOOP
    return None


def unpacking_error(node: ast.Assign) -> str | None:
    """`visit_Assign` of a tuple of targets (a call's value aside: its result types are paired
    with them): each target takes the value of its place in a tuple of values, whose count it
    asserts (no message); of any other value (`x, y = a`) it takes the length of result types it
    never computed, a TypeError."""
    target = node.targets[0]
    if not isinstance(target, ast.Tuple) or isinstance(node.value, ast.Call):
        return None
    if not isinstance(node.value, ast.Tuple):
        return "object of type 'NoneType' has no len()"
    if len(node.value.elts) == len(target.elts):
        return None
    return UNPACKING.format(len(target.elts), len(node.value.elts))


UNPACKING = "AssertionError (visit_Assign: {} targets and {} values; a tuple assignment takes one value per target)"


def loop_variables(fn: ast.FunctionDef) -> list[ast.Name]:
    """The variables of `fn`'s `for` loops, in the order Allo visits them (a nested function's aside)."""
    out = []
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.For):
            out += [t for t in ast.walk(node.target) if isinstance(t, ast.Name)]
        stack += reversed([c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)])
    return out


def range_error(iterable: ast.expr) -> str | None:
    """`build_single_for` of `range(...)`: one to three arguments; four or more it refuses, and
    of none it reads the first, an IndexError."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"):
        return None
    if any(isinstance(a, ast.Starred) for a in iterable.args):
        return None
    if len(iterable.args) >= 4:
        return "Unsupported range"
    return "list index out of range" if not iterable.args else None


ANNOTATED_TARGET = "target of AnnAssign must be Name, other type not supported."  # `visit_AnnAssign`
AUGMENTED_TARGET = "Unsupported AugAssign"  # `visit_AugAssign` of `a.x += 1`
CONSTANT_TYPE = "Unsupported constant type"  # `visit_Constant`: not an int, float, string or None


# `build_slices`' refusals, as `slice_error` returns them.
SLICE_ERRORS = (
    "Unsupported step type",
    "Unsupported negative index",
    "Index out of range",
    "Unsupported negative step",
    "Step larger than range",
)


def slice_error(indices: list[ast.expr], shape: tuple, constant) -> str | None:
    """`build_slices` of a subscript of an array with a slice in it, dimension by dimension: a
    slice's step must be a literal; its bounds, where `constant` folds them (`resolve_constant`:
    Python's values of the module), and a constant index beside it, must lie in the dimension,
    the step between 1 and the slice's length. A bound known only at run time is not checked."""
    for index, size in zip(indices, shape):
        if type(size) is not int:
            continue
        if isinstance(index, ast.Slice):
            if index.step is not None and not isinstance(index.step, ast.Constant):
                return "Unsupported step type"  # `a[0:4:K]`, `a[4:0:-1]` (a unary minus)
            lower = 0 if index.lower is None else constant(index.lower)
            upper = size if index.upper is None else constant(index.upper)
            step = 1 if index.step is None else index.step.value
            if type(lower) is not int or type(upper) is not int or type(step) is not int:
                continue
            if lower < 0 or upper < 0:
                return "Unsupported negative index"
            if lower >= size or upper > size:
                return "Index out of range"
            if step <= 0:
                return "Unsupported negative step"
            if step > upper - lower:
                return "Step larger than range"
        elif isinstance(index, (ast.Constant, ast.Name)):
            at = index.value if isinstance(index, ast.Constant) else constant(index)
            if type(at) is int and at < 0:
                return "Unsupported negative index"
            if type(at) is int and at >= size:
                return "Index out of range"
    return None


def expression_statement_error(node: ast.Expr) -> str | None:
    """`visit_Expr` takes a call or a constant (a docstring); any other expression statement
    stops the build. Allo's message prints the node's Python repr, whose address is left out."""
    if isinstance(node.value, (ast.Constant, ast.Call)):
        return None
    return f"Unsupported expression: <ast.{type(node.value).__name__} object>"


def attribute_error(attr: str, owner_is_name: bool) -> str | None:
    """`visit_Attribute` of a typed value: `.T`, `.reverse`, `.copy`, and `.bits`/`.fracs` of a
    name; any other attribute stops the build."""
    if attr in ("T", "reverse", "copy") or (attr in ("bits", "fracs") and owner_is_name):
        return None
    return f"Unsupported attribute `{attr}`"


def type_class(ty) -> str:
    """The class of `allo.ir.types` a type (`typing_rules.Ty`) is an object of."""
    return {"int": "Int", "uint": "UInt", "index": "Index", "fixed": "Fixed", "ufixed": "UFixed"}.get(ty.kind, "Float")


def rank_error(affine: bool, store: bool, rank: int, indices: int) -> str:
    """MLIR's verifier of a load or store of `indices` indices into a memref of `rank` dimensions
    (`verifyMemoryOpIndexing` of the affine dialect; `memref.load`/`memref.store`'s own)."""
    if affine:
        return f"'affine.{'store' if store else 'load'}' op affine map num results must equal memref rank"
    if store:
        return "'memref.store' op store index operand count not equal to memref rank"
    return f"'memref.load' op incorrect number of indices for load, expected {rank} but got {indices}"


def broadcast(lhs: tuple, rhs: tuple, match_lhs: bool) -> tuple[tuple | None, str | None]:
    """`visit_broadcast`: NumPy's broadcasting of `rhs` against `lhs`, dimension by dimension from
    the left after padding the shorter with 1s. `match_lhs` (an assignment's target): the result
    must be `lhs` itself. Returns (shape, None), or (None, Allo's message)."""
    cannot = f"Cannot broadcast {_shape(rhs)} to {_shape(lhs)}"
    if match_lhs and len(lhs) < len(rhs):
        return None, cannot
    width = max(len(lhs), len(rhs))
    left = [1] * (width - len(lhs)) + list(lhs)
    right = [1] * (width - len(rhs)) + list(rhs)
    for i in range(width):
        if left[i] == 1:
            if right[i] != 1 and match_lhs:
                return None, cannot
            left[i] = right[i]
        elif right[i] != 1 and left[i] != right[i]:
            return None, f"Shape mismatch, got {_shape(lhs)} and {_shape(rhs)}, and cannot be broadcasted"
    return tuple(left), None


def unvisited_lists(fn: ast.FunctionDef) -> set[int]:
    """The list literals of `fn` `TypeInferer` reads as something else than an expression, which
    it has no visitor for (`Unsupported node "List"`): an assignment's value to a name (a constant
    tensor: `visit_assignment_val`) and every list inside it, and, not followed here, a call's
    arguments (a stream's put aside: `visit_Call` visits its value)."""
    roots = []
    for node in ast.walk(fn):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            roots.append(node.value)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], (ast.Name, ast.Tuple)):
            roots.append(node.value)
        elif isinstance(node, ast.Call) and not (isinstance(node.func, ast.Attribute) and node.func.attr == "put"):
            roots += node.args
    return {id(n) for root in roots if root is not None for n in ast.walk(root) if isinstance(n, ast.List)}


def literal_shape(node: ast.expr) -> tuple | None:
    """The shape NumPy gives a nested list literal (`np.array(eval(...))` in
    `visit_assignment_val`): its nesting, when every level is rectangular; None for a ragged one."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return ()
    inner = [literal_shape(e) for e in node.elts]
    if any(i is None for i in inner) or len(set(inner)) > 1:
        return None
    return (len(node.elts), *(inner[0] if inner else ()))


def literal_error(target: tuple | None, node: ast.List) -> str | None:
    """`x: int32[2] = [1, 2, 3]`: a list literal is a constant tensor of exactly the declared
    shape (no broadcasting); an untyped local cannot take one (Allo's assertion has no message)."""
    if target is None:
        return LIST_WITHOUT_TYPE
    got = literal_shape(node)
    if got is None or tuple(got) == tuple(target):
        return None
    return f"Shape mismatch, got {_shape(target)} and {_shape(got)}"


LIST_WITHOUT_TYPE = (
    "AssertionError (visit_assignment_val: a list literal is a constant tensor of its target's declared type "
    "and shape; this local has none)"
)


PUT_ARGUMENTS = "Stream can only have one argument"  # `build_Call` of `s.put()`, `s.put(a, b)`
STORE_TYPE = "'memref.store' op failed to verify that type of 'value' matches element type of 'memref'"


def block_put_error(same_type: bool, value_rank: int, element_rank: int) -> str | None:
    """A put into a stream of blocks, or of an array, at `target="simulator"`: the FIFO is a
    memref of the element's shape behind one dimension of depth (`_process_function_streams`),
    an array put is copied into it element by element as it is, a scalar stored at the tail index
    (converted between integers only). MLIR's verifier of each `memref.store` refuses a value of
    another type than the FIFO's elements, then an index count (1 + the value's rank) other than
    the FIFO's rank (1 + the element's). Of the same rank and type, a put of another shape is not
    judged here (no verifier sees it)."""
    if not same_type:
        return STORE_TYPE
    if value_rank != element_rank:
        return rank_error(False, True, 1 + element_rank, 1 + value_rank)
    return None


TENSOR_WITHOUT_TYPE = (
    "AssertionError (visit_assignment_val: a global NumPy array is a constant tensor of its target's declared "
    "type and shape; this local has none)"
)


def _shape(shape: tuple) -> str:
    return str(tuple(shape))


# The keyword a compound statement starts with: a problem is shown there, not on the whole block.
_KEYWORDS = {
    ast.For: "for",
    ast.While: "while",
    ast.Try: "try",
    ast.ClassDef: "class",
    ast.AsyncFor: "async",
    ast.AsyncWith: "async",
    ast.AsyncFunctionDef: "async",
    ast.Match: "match",
    ast.With: "with",
}
if hasattr(ast, "TryStar"):  # Python 3.11
    _KEYWORDS[ast.TryStar] = "try"


def head(node: ast.stmt) -> ast.AST:
    """Where a problem of `node` is shown: its keyword for a compound statement, else itself."""
    keyword = _KEYWORDS.get(type(node))
    if keyword is None:
        return node
    end = node.col_offset + len(keyword)
    return ast.Pass(lineno=node.lineno, col_offset=node.col_offset, end_lineno=node.lineno, end_col_offset=end)


def sharded_params(fn: ast.FunctionDef) -> set[str]:
    """Parameters annotated with a layout (`a: int32[M, N] @ [S(0), R]`): a PE's array is its
    share (`DTensor.get_local_shape`), whose shape the typing does not follow."""
    out = set()
    for arg in fn.args.args:
        ann = arg.annotation
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.MatMult):
            right = ann.right
            if not (isinstance(right, ast.Name) and right.id == "Stateful") and not (
                isinstance(right, ast.Attribute) and right.attr == "Stateful"
            ):
                out.add(arg.arg)
    return out


BUILTIN_NAMES = frozenset(dir(builtins))


def free_names(fn: ast.FunctionDef) -> set[str]:
    """The names `fn` reads that it binds nowhere itself (no parameter, assignment, loop or
    `with` target, import, nested definition), Python's builtins aside: what Allo must find in
    the module's globals, the region's symbols or the enclosing scopes (`get_global_vars`)."""
    bound = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    read = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return read - bound - BUILTIN_NAMES


def assigned_names(fn: ast.FunctionDef) -> set[str]:
    """The names `fn` binds by a parameter, an assignment, a loop or a `with` target (an augmented
    assignment aside: it reads the name first)."""
    out = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.For)):
            targets = [node.target]
        elif isinstance(node, ast.With):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        for target in targets:
            out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return out


# `visit_Call`'s assertions on the Python builtins it builds: the count of positional arguments
# (a keyword argument is not read at all).
BUILTIN_ARITY = {
    "float": "Only support one argument for `float` and `int`",
    "int": "Only support one argument for `float` and `int`",
    "min": "Only support two arguments for `min` and `max`",
    "max": "Only support two arguments for `min` and `max`",
}

# `build_Return` emits `func.return` at the insertion point it pops (`ctx.pop_ip()`): inside a
# loop or a branch that is the loop's or branch's body, and every statement built after it then
# meets the wrong insertion points. Allo's own error varies (the builder's stack, or MLIR's
# `'func.return' op expects parent op 'func.func'`); it never builds.
EARLY_RETURN = (
    "Unsupported early return: build_Return emits func.return at the builder's current insertion point, "
    "which only the last statement of the function may do"
)

UNDEFINED_NAME = "Unsupported Name `{}`"  # `visit_Name`: no symbol, no global
# `build_slices` of one slice of an array of two or more dimensions (an AttributeError in Allo)
SINGLE_SLICE = (
    "'Slice' object has no attribute 'dims' (a single slice of a 2-D array: slice each dimension, `a[0:2, :]`)"
)
# `visit_library_op`'s assertion of `allo.matmul`'s inner dimensions
MATMUL_SHAPES = (
    "The last dimension of the first input and the second last dimension of the second input must be "
    "the same, got {} and {}"
)
FOREIGN_GLOBAL = "Unsupported global variable `{}`"  # `visit_Name`: a global neither int, float nor Allo type
UNDEFINED_FUNCTION = "Unsupported function call {}"  # `visit_Call`: the callee resolves to nothing
UNDEFINED_METHOD = "Unsupported function call or attribute method `.{}`"  # `visit_Call` of `x.f()`
