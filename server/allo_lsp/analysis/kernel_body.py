"""What a kernel's body does: parameter reads and writes, stream puts and gets, `get_pid()`
unpacking and `allo.meta_*` constructs.

A parameter passed to a call is followed into the callee when the callee is a region or a helper
function of the same file (hierarchical designs write through `inner(local_A, local_B)`); any other
call only reads its arguments, as Allo's library functions return their results.
"""

from __future__ import annotations

from dataclasses import replace
from math import prod

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import UNKNOWN, FunctionRef, RegionRef, Scope, Symbol
from allo_lsp.analysis.model import (
    Access,
    Kernel,
    LibraryCall,
    LocalBinding,
    MetaUse,
    PidUnpack,
    Region,
    RemovedSyntax,
    StreamUse,
)
from allo_lsp.analysis.syntax import dotted, target_names
from allo_lsp.analysis.types import AlloType, DType
from allo_lsp.analysis.walk import walk
from allo_lsp.protocol.meta_chains import BRANCHES, MetaChainError, MetaLevel

META = ("meta_if", "meta_elif", "meta_else", "meta_for")
# Stream methods that move an element, and the direction: the non-blocking forms
# (`ok = s.try_put(x)`, `x, ok = s.try_get()`) count as the blocking ones do.
_STREAM_OPS = {"put": "put", "get": "get", "try_put": "put", "try_get": "get"}
# `df.gather(pipes)` / `df.scatter(buffer, pipes)`: the position of `pipes`.
_COLLECTIVES = {"gather": 0, "scatter": 1}
_MAX_HELPER_DEPTH = 4
# Loops whose trip count can fold: `for i in range(...)` and `for i, j in allo.grid(M, N)`.
_COUNTED_LOOPS = ("range", "grid")
# Host libraries whose functions a kernel may name (`np.exp(x)`), by module; an unimported `np`
# in a snippet still reads as numpy.
_LIBRARIES = {"math": "math", "numpy": "numpy", "np": "numpy"}


def scan_kernel_body(fn: cst.FunctionDef, kernel: Kernel, region: Region, ctx: Context, scope: Scope) -> None:
    own = [p.name for p in kernel.params]
    # Region parameters the body names directly (captured from the region's scope, not bound).
    free = [p.name for p in region.params if p.name not in own]
    scanner = _Scanner(ctx, scope, own + free, kernel.name, region, 0)
    fn.body.visit(scanner)
    for p in kernel.params:
        p.access = scanner.access[p.name]
    kernel.captured = {n: a for n in free if (a := scanner.access[n]).reads or a.writes}
    kernel.pid_unpacks = scanner.pid_unpacks
    kernel.meta_uses = scanner.meta_uses
    kernel.subregions = scanner.subregions
    kernel.local_bindings = scanner.bindings
    kernel.library_calls = scanner.library_calls
    kernel.constants = scanner.constants
    kernel.annotations = scanner.annotations
    kernel.data_globals = scanner.data_globals


# NumPy's scalar types: a call makes a NumPy scalar (data to Allo's `visit_Name`, no array);
# float64 is a Python float, which Allo reads as a float32.
_NUMPY_SCALARS = frozenset("bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 intc uintc".split())
_DATA_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Set)
_DATA_LITERALS += (cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)


def _data_global(found) -> bool | None:
    """Whether the binding a kernel reads is data, which Allo's `visit_Name` refuses as a value
    (``Unsupported global variable``: only an int, a float or an Allo type is read): True for a
    NumPy array (`np.zeros(...)`, a constant tensor where assigned whole), False for other data (a
    string, list, tuple, dict, set, None, a NumPy scalar), None when it is none of these or not
    known from its binding alone."""
    binding = found[0]
    node = binding.node
    if node is None or binding.path:
        return None
    if isinstance(node, _DATA_LITERALS) or (isinstance(node, cst.Name) and node.value == "None"):
        return False
    if isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name)):
        name = dotted(node.func)
        module, _, function = (name or "").rpartition(".")
        if module.split(".")[0] in ("np", "numpy"):
            if function == "float64":
                return None
            return function not in _NUMPY_SCALARS
    return None


def _helper_access(fn: cst.FunctionDef, ctx: Context, scope: Scope, depth: int) -> list[Access]:
    params = [p.name.value for p in list(fn.params.posonly_params) + list(fn.params.params)]
    scanner = _Scanner(ctx, scope, params, None, None, depth)
    fn.body.visit(scanner)
    return [scanner.access[p] for p in params]


class _Scanner(cst.CSTVisitor):
    def __init__(self, ctx, scope, params, kernel, region, depth) -> None:
        self.ctx = ctx
        self.scope = scope
        self.access = {p: Access() for p in params}
        self.kernel = kernel
        self.region = region
        self.depth = depth
        self.pid_unpacks: list[PidUnpack] = []
        self.meta_uses: list[MetaUse] = []
        self.subregions: list[Region] = []
        self.bindings: list[LocalBinding] = []
        self.library_calls: list[LibraryCall] = []
        # What the body's typing reads of the world (`expression_types.py`): names folded once.
        self.constants: dict[str, object] = {}
        self.annotations: dict[tuple[int, int], AlloType] = {}
        self.data_globals: dict[str, bool] = {}
        self._folded: set[str] = set()
        # One level per meta branch body being visited (the kernel body is the outermost; a
        # meta_for body shares its enclosing one): Allo pairs a meta_elif/meta_else with the last
        # open meta_if of its own level (protocol/meta_chains.py).
        self._levels: list[MetaLevel] = [MetaLevel()]
        self._meta_bodies: set[int] = set()
        # What a stream use's trip count needs: one factor per enclosing loop or branch (None
        # when it does not fold), the meta branches open, and the names the body binds (a loop
        # bound that reads one is not a constant).
        self._trips: list[int | None] = []
        self._meta_branches: set[int] = set()
        self._loop_marks: dict[int, int] = {}  # a meta_for's: where its body's branches start in its level's log
        self._locals: set[str] = set()

    # -- writes --------------------------------------------------------------------------

    def _store(self, target: cst.BaseExpression, also_read: bool) -> None:
        if isinstance(target, cst.Name) and not also_read:
            self.bindings.append(LocalBinding(target.value, self.ctx.range(target)))
        if isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._store(el.value, also_read)
            return
        root = target
        while isinstance(root, (cst.Subscript, cst.Attribute)):
            if isinstance(root, cst.Subscript):
                for s in root.slice:
                    s.visit(self)
            root = root.value
        if isinstance(root, cst.Name) and root.value not in self.access:
            self._locals.add(root.value)
        if isinstance(root, cst.Name) and root.value in self.access:
            access = self.access[root.value]
            access.uses.append(self.ctx.range(root))
            access.every_pe |= not self._meta_branches
            # `A[i] = x` and `A += x` write the array; a bare `A = x` only rebinds the name.
            if root is not target or also_read:
                access.writes = True
            if also_read:
                access.reads = True

    def visit_Assign(self, node: cst.Assign) -> bool:
        for t in node.targets:
            self._store(t.target, also_read=False)
        self._pid(node)
        node.value.visit(self)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._store(node.target, also_read=True)
        node.value.visit(self)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store(node.target, also_read=False)
        self._stateful(node.annotation.annotation)
        self._annotation(node.annotation.annotation)
        if node.value is not None:
            node.value.visit(self)
        return False

    def _annotation(self, annotation: cst.BaseExpression) -> None:
        """A local's declared type, as the analysis folds every annotation."""
        if self.kernel is None:
            return
        value = self.ctx.evaluator.annotation(annotation, self.scope, self.ctx.line(annotation))
        if isinstance(value, AlloType) and value.dtype is not None:
            start = self.ctx.range(annotation).start
            self.annotations[(start.line, start.column)] = value

    def _stateful(self, annotation: cst.BaseExpression) -> None:
        """`x: stateful(T) = ...`, and `x: T @ stateful` of the builds between, removed in 2026
        (Allo PR #555) for `x: T @ Stateful`."""
        if self.region is None:
            return
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.MatrixMultiply):
            if self._names(annotation.right, "allo.ir.types.stateful", "stateful"):
                self.region.removed_syntax.append(
                    RemovedSyntax("@ stateful", self.ctx.range(annotation.right), "Stateful")
                )
            return
        call = annotation if isinstance(annotation, cst.Call) else None
        if call is None or len(call.args) != 1 or call.args[0].keyword is not None:
            return
        if not self._names(call.func, "allo.ir.types.stateful", "stateful"):
            return
        replacement = f"{self.ctx.text(call.args[0].value)} @ Stateful"
        self.region.removed_syntax.append(RemovedSyntax("stateful()", self.ctx.range(call), replacement))

    def _names(self, node: cst.BaseExpression, qualified: str, bare: str) -> bool:
        """Whether `node` is the name `bare` imported as `qualified` (or not imported at all)."""
        if isinstance(node, cst.Attribute):
            return node.attr.value == bare and dotted(node) in (qualified, f"types.{bare}")
        if not isinstance(node, cst.Name) or node.value != bare:
            return False
        line = self.ctx.line(node)
        return self.scope.find(bare, line) is None or self.ctx.evaluator.lookup(bare, self.scope, line) == Symbol(
            qualified
        )

    def _library_call(self, func: cst.BaseExpression) -> None:
        """`math.exp(x)`, `np.exp(x)`, or `exp(x)` after `from math import exp`."""
        line = self.ctx.line(func)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            base = func.value.value
            value = self.ctx.evaluator.lookup(base, self.scope, line)
            module = value.qualname if isinstance(value, Symbol) else None
            if module is None and self.scope.find(base, line) is None:
                module = _LIBRARIES.get(base)
            function = f"{module}.{func.attr.value}"
        elif isinstance(func, cst.Name):
            value = self.ctx.evaluator.lookup(func.value, self.scope, line)
            function = value.qualname if isinstance(value, Symbol) else ""
            module = function.rpartition(".")[0]
        else:
            return
        if module in _LIBRARIES.values():
            self.library_calls.append(LibraryCall(function, self.ctx.range(func)))

    # -- reads ---------------------------------------------------------------------------

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.access:
            self.access[node.value].reads = True
            self.access[node.value].uses.append(self.ctx.range(node))
            self.access[node.value].every_pe |= not self._meta_branches
        elif self.kernel is not None and node.value not in self._folded:
            self._folded.add(node.value)
            value = self.ctx.evaluator.lookup(node.value, self.scope, self.ctx.line(node))
            if isinstance(value, (int, float, DType)):  # a bool is an int too
                self.constants[node.value] = value
            elif value is UNKNOWN and self.scope.find(node.value, self.ctx.line(node)) is None:
                self.constants[node.value] = None  # bound nowhere the kernel sees (a typo?)
            else:
                found = self.scope.find(node.value, self.ctx.line(node))
                data = _data_global(found) if found is not None and found[1] is not self.scope else None
                if data is not None:  # a global of the module or an enclosing function, not a local
                    self.data_globals[node.value] = data

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `.attr` is a Name node too, but never a parameter
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_FunctionDef(self, node) -> bool:
        return False

    # -- trip counts -------------------------------------------------------------------------

    def visit_For(self, node: cst.For) -> None:
        self._trips.append(self._loop_trips(node.iter))
        self._locals.update(target_names(node))

    def leave_For(self, original_node: cst.For) -> None:
        self._trips.pop()

    # A use under these may run any number of times, or not at all. (Named visits, not an
    # `on_visit` override: that would cost a call on every node of every kernel.)
    def _uncounted(self, node: cst.CSTNode) -> None:
        self._trips.append(None)

    def _counted_again(self, original_node: cst.CSTNode) -> None:
        self._trips.pop()

    visit_If = visit_While = visit_Try = visit_IfExp = visit_CompFor = _uncounted
    leave_If = leave_While = leave_Try = leave_IfExp = leave_CompFor = _counted_again

    def _loop_trips(self, iterable: cst.BaseExpression) -> int | None:
        func = iterable.func if isinstance(iterable, cst.Call) else None
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if name not in _COUNTED_LOOPS or any(a.keyword or a.star for a in iterable.args):  # type: ignore[union-attr]
            return None
        bounds = [self._constant(a.value) for a in iterable.args]  # type: ignore[union-attr]
        return _trip_count(name, bounds)

    def _constant(self, node: cst.BaseExpression) -> int | None:
        """An int the expression folds to, unless it reads a name the kernel binds."""
        if any(isinstance(n, cst.Name) and (n.value in self._locals or n.value in self.access) for n in walk(node)):
            return None
        value = self.ctx.evaluator.eval(node, self.scope, self.ctx.line(node))
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _use_trips(self, op: str) -> int | None:
        if op.startswith("try_") or None in self._trips:  # a non-blocking call may move nothing
            return None
        return prod(self._trips)  # type: ignore[arg-type]

    def visit_Call(self, node: cst.Call) -> bool:
        if self.kernel is not None:
            self._library_call(node.func)
        if self._stream_use(node) or self._collective(node):
            for a in node.args:
                a.visit(self)
            return False
        callee = self._callee_access(node.func)
        if callee is None:
            return True
        node.func.visit(self)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, arg in enumerate(positional):
            value = arg.value
            if isinstance(value, cst.Name) and value.value in self.access and i < len(callee):
                mine = self.access[value.value]
                mine.reads |= callee[i].reads
                mine.writes |= callee[i].writes
                mine.uses.append(self.ctx.range(value))
                mine.every_pe |= not self._meta_branches
            else:
                arg.visit(self)
        for arg in node.args:
            if arg not in positional:
                arg.visit(self)
        return False

    def _callee_access(self, func: cst.BaseExpression):
        node = func.value if isinstance(func, cst.Subscript) else func  # `inner[2, 2](...)`
        if not isinstance(node, cst.Name) or self.depth >= _MAX_HELPER_DEPTH:
            return None
        value = self.ctx.evaluator.lookup(node.value, self.scope, self.ctx.line(func))
        if isinstance(value, RegionRef):
            self.subregions.append(value.region)
            out = []
            for p in value.region.params:
                reads = writes = False
                for k in value.region.kernels:
                    for kp in k.params:
                        if kp.bound_to == p.name:
                            reads |= kp.access.reads
                            writes |= kp.access.writes
                out.append(Access(reads, writes))
            return out
        if isinstance(value, FunctionRef):
            return _helper_access(value.node, self.ctx, value.scope, self.depth + 1)
        return None

    # -- streams, get_pid, meta ----------------------------------------------------------

    def _stream_use(self, node: cst.Call) -> bool:
        func = node.func
        op = _STREAM_OPS.get(func.attr.value) if isinstance(func, cst.Attribute) else None
        if self.kernel is None or op is None:
            return False
        target = func.value
        indexed = isinstance(target, cst.Subscript)
        root = target.value if indexed else target
        if not isinstance(root, cst.Name) or root.value in self.access:
            return False
        if func.attr.value.startswith("try_") and self.region.stream(root.value) is None:
            return False  # a non-blocking call on something that is not a stream of the region
        if indexed:
            for s in target.slice:
                s.visit(self)
        self.region.stream_uses.append(
            StreamUse(
                stream=root.value,
                op=op,
                kernel=self.kernel,
                range=self.ctx.range(root),
                call_range=self.ctx.range(node),
                arg_count=len(node.args),
                indexed=indexed,
                trips=self._use_trips(func.attr.value),
                meta_branch=bool(self._meta_branches),
            )
        )
        return True

    def _collective(self, node: cst.Call) -> bool:
        """`df.gather(pipes)` gets from every stream of `pipes`, `df.scatter(buf, pipes)` puts
        into each; `pipes` is a list of streams or a slice of a stream array (`pipe[:]`)."""
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        index = _COLLECTIVES.get(name)
        positional = [a.value for a in node.args if a.keyword is None]
        if self.kernel is None or index is None or len(positional) <= index:
            return False
        pipes = positional[index]
        items = [e.value for e in pipes.elements] if isinstance(pipes, (cst.List, cst.Tuple)) else [pipes]
        roots = [item.value if isinstance(item, cst.Subscript) else item for item in items]
        # Only declared streams: a helper of the user's may be called `gather` too.
        if not roots or not all(isinstance(r, cst.Name) and self.region.stream(r.value) for r in roots):
            return False
        op = "get" if name == "gather" else "put"
        for item, root in zip(items, roots):
            self.region.stream_uses.append(
                StreamUse(
                    root.value,
                    op,
                    self.kernel,
                    self.ctx.range(root),
                    self.ctx.range(node),
                    1,
                    isinstance(item, cst.Subscript),
                    self._use_trips(name),
                    bool(self._meta_branches),
                )
            )
        return True

    def _pid(self, node: cst.Assign) -> None:
        value = node.value
        func = value.func if isinstance(value, cst.Call) else None
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if name != "get_pid" or len(node.targets) != 1:
            return
        target = node.targets[0].target
        count = len(target.elements) if isinstance(target, (cst.Tuple, cst.List)) else 1
        self.pid_unpacks.append(PidUnpack(count, self.ctx.range(target)))

    def visit_With(self, node: cst.With) -> None:
        metas = [(call, name) for call, name in map(_meta_call, node.items) if name is not None]
        for call, name in metas:
            func = call.func
            qualified = (
                isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "allo"
            )
            matched = self._branch(name, len(self.meta_uses))
            self.meta_uses.append(MetaUse(name, qualified, matched, self.ctx.range(func)))
        if metas:
            self._meta_bodies.add(id(node))
            self._locals.update(target_names(node))
            if any(name in BRANCHES for _, name in metas):
                self._levels.append(MetaLevel())  # a meta_for body stays on its enclosing level
                self._meta_branches.add(id(node))
                self._trips.append(None)
            else:  # `meta_for(ub)`, `(lb, ub)` or `(lb, ub, step)`, unrolled at compile time
                counts = [_trip_count("range", [self._constant(a.value) for a in call.args]) for call, _ in metas]
                self._trips.append(None if None in counts else prod(counts))  # type: ignore[arg-type]
                self._loop_marks[id(node)] = self._levels[-1].mark()

    def leave_With(self, original_node: cst.With) -> None:
        if id(original_node) in self._meta_bodies:
            if id(original_node) in self._meta_branches:
                self._levels.pop()
            self._meta_bodies.discard(id(original_node))
            self._meta_branches.discard(id(original_node))
            trips = self._trips.pop()
            mark = self._loop_marks.pop(id(original_node), None)
            if mark is not None and trips:  # Allo pairs the body's branches once per iteration
                try:
                    self._levels[-1].replay(mark, trips)
                except MetaChainError as exc:  # a later iteration's copy is unmatched
                    use = self.meta_uses[exc.tag]  # type: ignore[index]
                    self.meta_uses[exc.tag] = replace(use, matched=False, unrolled=True)  # type: ignore[index]

    def _branch(self, name: str, tag: int) -> bool:
        """Whether a meta branch pairs with an open chain of its level (conditions are not
        folded here: only the pairing matters); `tag` is its index in `meta_uses`."""
        if name not in BRANCHES:
            return True
        try:
            self._levels[-1].branch(name, tag=tag)
        except MetaChainError:
            return False
        return True


def _trip_count(loop: str, bounds: list[int | None]) -> int | None:
    """Iterations of `range(*bounds)` or `allo.grid(*bounds)`; None when a bound is unknown."""
    if not bounds or None in bounds:
        return None
    if loop == "grid":
        return prod(max(b, 0) for b in bounds)  # type: ignore[type-var]
    if len(bounds) > 3 or (len(bounds) == 3 and bounds[2] == 0):
        return None
    return len(range(*bounds))  # type: ignore[arg-type]


def _meta_call(item: cst.WithItem) -> tuple[cst.Call | None, str | None]:
    call = item.item
    if not isinstance(call, cst.Call):
        return None, None
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return (call, name) if name in META else (None, None)
