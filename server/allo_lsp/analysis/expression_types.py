"""Each kernel body typed once per analysis, as Allo's type inference types it.

`protocol/kernel_types.py` does the typing on the standard library's `ast`; this module gives it
the world as the model knows it (the kernel's parameters, its region's streams, the constants and
local annotations the extraction folded with the analysis' own evaluator) and writes what it
found into the model (`Kernel.typing`) in the model's positions: hovers, inlay hints and the
rules read that one typing. A kernel that does not parse or type (a half-typed line) gets an
empty typing, never an exception.
"""

from __future__ import annotations

import ast
import re

from allo_lsp.analysis.model import (
    FileModel,
    Kernel,
    KernelTyping,
    Operation,
    Range,
    Region,
    TypedExpression,
    TypedLocal,
    TypedPut,
    TypingProblem,
)
from allo_lsp.analysis.non_negative import NonNegative
from allo_lsp.analysis.types import AlloType, DType
from allo_lsp.protocol.build_errors import free_names
from allo_lsp.protocol.kernel_model import _BINOPS, Environment, Value, is_pid_call
from allo_lsp.protocol.kernel_types import CHAINED_COMPARISON, SLICE_WARNING, KernelTypes
from allo_lsp.protocol.typing_rules import BOOL, INDEX, Ty

_UNARY = {ast.Invert: "~", ast.USub: "-", ast.UAdd: "+"}


def type_kernels(model: FileModel, text: str) -> None:
    """Set `typing` on every kernel of `model` that has none yet (a replayed statement keeps its
    kernels' typing: same text, same world)."""
    lines: list[str] | None = None
    words = _Words(text)
    # Allo builds each PE's function, its untaken meta branches unvisited, except for AIE
    # (`unroll=False`): a file that builds for AIE has every branch judged.
    per_pe = _AIE_TARGET.search(text) is None
    for region in model.regions:
        for kernel in region.kernels:
            if kernel.typing is None:
                lines = lines if lines is not None else text.split("\n")
                kernel.typing = _typing(kernel, region, lines, words, per_pe)


def dtype_ty(dtype: DType) -> Ty:
    if dtype.kind == "bool":
        return BOOL
    if dtype.kind == "index":
        return INDEX
    return Ty(dtype.kind, dtype.bits, dtype.frac)


def _value(t: AlloType | None) -> Value | None:
    return Value(dtype_ty(t.dtype), tuple(t.shape)) if t is not None and t.dtype is not None else None


def _typing(kernel: Kernel, region: Region, lines: list[str], words: _Words, per_pe: bool) -> KernelTyping:
    try:
        source = _Source(kernel, lines)
        fn = source.function()
        if fn is None:
            return KernelTyping()
        env = _environment(kernel, region, source)
        env.unbound = _unbound(kernel, fn, source, words)
        env.modules = frozenset(words.modules & free_names(fn))
        mapping = kernel.mapping
        if per_pe and mapping and all(type(m) is int and m > 0 for m in mapping):
            env.mapping = tuple(mapping)
        return _collect(fn, KernelTypes(fn, env), source)
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError, KeyError, IndexError):
        return KernelTyping()  # the typer met a shape it does not follow: nothing, not a crash


def _environment(kernel: Kernel, region: Region, source: _Source) -> Environment:
    params = {p.name: v for p in kernel.params if (v := _value(p.type)) is not None}
    streams = {s.name: v for s in region.streams if s.type is not None and (v := _value(s.type.element)) is not None}
    constants = {n: dtype_ty(c) if isinstance(c, DType) else c for n, c in kernel.constants.items() if c is not None}

    def annotation(node: ast.expr) -> Value | None:
        start = source.range(node).start
        return _value(kernel.annotations.get((start.line, start.column)))

    env = Environment(params, constants, streams, annotation)
    env.region_params = frozenset(p.name for p in region.params)
    data = {n: array for n, array in kernel.data_globals.items() if n not in params}
    env.foreign = frozenset(data)
    env.arrays = frozenset(n for n, array in data.items() if array)
    return env


_AIE_TARGET = re.compile(r"""target\s*=\s*["']aie["']""")
_STAR_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\s+\*", re.M)
_WORD = re.compile(r"\w+")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)", re.M)  # the names up to a comment or `;`


class _Words:
    """The file's words and the lines each is on, read once per analysis and only when a kernel
    has a name to judge (`_unbound`); and whether a star import may bind anything."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: dict[str, list[int]] | None = None
        self._star: bool | None = None
        self._modules: set[str] | None = None

    @property
    def modules(self) -> set[str]:
        """The names an `import` statement of the file binds to a module (`import numpy as np`:
        `np`; `import allo.ir.types`: `allo`); a `from` import may bind a function or a value."""
        if self._modules is None:
            self._modules = set()
            for names in _IMPORT.findall(self.text):
                for alias in names.split(","):
                    words = alias.split()
                    if len(words) == 3 and words[1] == "as":
                        self._modules.add(words[2])
                    elif len(words) == 1:
                        self._modules.add(words[0].split(".")[0])
        return self._modules

    @property
    def star_import(self) -> bool:
        if self._star is None:
            self._star = _STAR_IMPORT.search(self.text) is not None
        return self._star

    def lines_of(self, word: str) -> list[int]:
        if self._lines is None:
            self._lines = {}
            for number, line in enumerate(self.text.split("\n")):
                for found in _WORD.findall(line):
                    at = self._lines.setdefault(found, [])
                    if not at or at[-1] != number:
                        at.append(number)
        return self._lines.get(word, [])


def _unbound(kernel: Kernel, fn: ast.FunctionDef, source: _Source, words: _Words) -> frozenset[str]:
    """The names the body reads that nothing in the file binds (`kernel_body.py` found no binding
    the kernel sees, the body binds none): Allo's `Unsupported Name`. Not judged where a star
    import may bind anything, nor for a name the file writes anywhere outside the kernel (Allo
    also reads the ints, floats, types and functions of the frames that call `df.build`)."""
    candidates = {n for n, c in kernel.constants.items() if c is None} & free_names(fn)
    if not candidates or words.star_import:
        return frozenset()
    first, last = source.first, source.first + len(source.lines) - 1
    return frozenset(n for n in candidates if all(first <= i <= last for i in words.lines_of(n)))


class _Source:
    """A kernel's lines parsed with `ast`, and ast's positions (1-based lines from the `def`,
    UTF-8 byte columns) as the model's (0-based file lines, code points)."""

    def __init__(self, kernel: Kernel, lines: list[str]) -> None:
        self.first = kernel.range.start.line
        last = kernel.body_range.end.line if kernel.body_range else self.first
        self.lines = lines[self.first : last + 1]
        self.indented = bool(self.lines) and self.lines[0][:1] in (" ", "\t")

    def function(self) -> ast.FunctionDef | None:
        # An indented `def` parses under an `if` of its own: columns stay the file's.
        code = ("if 1:\n" if self.indented else "") + "\n".join(self.lines)
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        node = tree.body[0] if tree.body else None
        if self.indented and isinstance(node, ast.If):
            node = node.body[0]
        return node if isinstance(node, ast.FunctionDef) else None

    def _point(self, line: int, column: int) -> tuple[int, int]:
        index = line - 1 - self.indented
        text = self.lines[index]
        if not text.isascii():
            column = len(text.encode("utf-8")[:column].decode("utf-8", errors="replace"))
        return self.first + index, column

    def range(self, node: ast.AST) -> Range:
        start = self._point(node.lineno, node.col_offset)
        end = self._point(node.end_lineno, node.end_col_offset)
        return Range.of(*start, *end)


def _collect(fn: ast.FunctionDef, kt: KernelTypes, source: _Source) -> KernelTyping:
    out = KernelTyping()
    runtime: set[str] = set()  # names the body binds as it runs (loop variables, locals)
    indexed: list[ast.Subscript] = []  # elements of stream arrays: `fifo[i, j].put(x)`
    operators: list[ast.AST] = []
    for node in ast.walk(fn):  # one walk: most nodes need only the look-up of their type
        value = kt.of(node)
        if value is not None:
            out.expressions.append(TypedExpression(source.range(node), value.ty, value.shape))
        kind = type(node)
        if kind in _OPERATORS:
            operators.append(node)
        elif kind is ast.Call:
            _call(node, kt, source, out, indexed)
        elif kind is ast.For:
            runtime.update(_stored(node.target))
            step = _step(node, kt, source) if node.lineno not in kt.untaken else None
            if step is not None:
                out.problems.append(step)
        elif kind is ast.Assign and not is_pid_call(node.value, kt.env):
            runtime.update(n for t in node.targets for n in _stored(t))
        elif kind is ast.AnnAssign:
            runtime.update(_stored(node.target))
    built = [s for s in indexed if s.lineno not in kt.untaken]  # a meta branch no PE takes is not built
    out.problems += _runtime_indices(built, runtime | set(kt.env.params), source)
    # A stream array's index is Python's: Allo evaluates it when it builds (`get_stream_name`).
    in_index = {id(n) for subscript in indexed for n in ast.walk(subscript.slice)}
    non_negative = NonNegative(fn, kt.env)
    for node in operators:
        operation = _operation(node, kt, source, non_negative) if id(node) not in in_index else None
        if operation is not None:
            out.operations.append(operation)
    for name, value in kt.locals.values():
        out.locals.append(TypedLocal(name.id, source.range(name), value.ty))
    out.problems += [
        TypingProblem(
            source.range(p.node), p.message, p.error, p.kind or _PIPELINE_KINDS.get(p.pipeline) or _kind(p.message)
        )
        for p in kt.problems
    ]
    out.problems.sort(key=lambda p: p.range.start)
    out.expressions.sort(key=lambda e: e.range.start)
    out.locals.sort(key=lambda t: t.range.start)
    return out


# What kind of build error or warning a message of `kernel_types.py` is, by its start.
_KINDS = (
    ("Unsupported Name", "name"),  # after its block (ADF080); one bound nowhere is kind "undefined"
    ("Unsupported function call", "call"),
    ("Typing rule is not defined", "operator"),
    ("Allo cannot build", "operator"),
    ("Can only access bit", "bits"),
    ("upper bound must be", "bits"),
    ("Can only reverse", "bits"),
    ("Unsupported bitwidth", "bits"),
    (CHAINED_COMPARISON, "comparison"),
    (SLICE_WARNING, "slice"),
)


# An MLIR verifier's refusal, by the pipeline that meets it (`Problem.pipeline`).
_PIPELINE_KINDS = {"build": "stored-get", "simulator": "simulator-put"}


def _kind(message: str) -> str:
    return next((kind for start, kind in _KINDS if message.startswith(start)), "operator")


def _step(node: ast.For, kt: KernelTypes, source: _Source) -> TypingProblem | None:
    """`for i in range(a, b, step)` with a step that folds to 0 or less: Allo's builder stops
    (`build_single_for`: "Step in for loop range should be positive", or the affine loop's own
    verifier, which takes only a positive step)."""
    call = node.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"):
        return None
    if len(call.args) != 3:
        return None
    step = call.args[2]
    value = _literal(step)
    if value is None and isinstance(step, ast.Name) and kt.of(step) is not None:
        folded = kt.env.constants.get(step.id)
        value = folded if type(folded) is int else None
    if value is None or value > 0:
        return None
    return TypingProblem(source.range(step), f"Step in for loop range should be positive, got: {value}", True, "range")


def _ty(kt: KernelTypes, node: ast.AST) -> Ty | None:
    value = kt.of(node)
    return value.ty if value is not None and not value.shape else None


def _literal(node: ast.AST) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


_OPERATORS = (ast.BinOp, ast.AugAssign, ast.UnaryOp)
_DIVISIONS = ("/", "//", "%")


def _operation(node: ast.AST, kt: KernelTypes, source: _Source, non_negative: NonNegative) -> Operation | None:
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        left = node.left if isinstance(node, ast.BinOp) else node.target
        right = node.right if isinstance(node, ast.BinOp) else node.value
        op = _BINOPS.get(type(node.op))
        if op is None:
            return None
        signs = op in _DIVISIONS  # C's and Python's numbers differ there for negative operands only
        return Operation(
            source.range(node),
            op,
            _ty(kt, left),
            _ty(kt, right),
            _literal(left),
            _literal(right),
            signs and non_negative(left),
            signs and non_negative(right),
        )
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return Operation(source.range(node), _UNARY[type(node.op)], _ty(kt, node.operand), None, _literal(node.operand))
    return None


def _stored(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _runtime_indices(indexed: list[ast.Subscript], runtime: set[str], source: _Source) -> list[TypingProblem]:
    """An element of a stream array is chosen when Allo builds the kernel: its type inference
    reads the index as a symbolic expression of `get_pid()` values, `meta_for` variables and
    constants (`get_symbolic_expr` in `allo/ir/visitor.py`), and a variable of the body there (a
    loop variable, a local, a parameter) stops the build with a `ValueError`."""
    out = []
    for subscript in indexed:
        name = next((n for n in ast.walk(subscript.slice) if isinstance(n, ast.Name) and n.id in runtime), None)
        if name is not None:
            message = "Fail to resolve the expression as symbolic expression."
            out.append(TypingProblem(source.range(name), message, True, "stream-index"))
    return out


_STREAM_OPS = ("put", "get", "try_put", "try_get")


def _call(node: ast.Call, kt: KernelTypes, source: _Source, out: KernelTyping, indexed: list) -> None:
    """`allo.<function>(...)`, a stream array's element, and `s.put(v)` / `s[i].put(v)` of a
    stream whose element type is known, `v` typed."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "allo":
        out.calls.append((func.attr, source.range(func)))
    if func.attr in _STREAM_OPS and isinstance(owner, ast.Subscript):
        if isinstance(owner.value, ast.Name) and owner.value.id in kt.env.streams:
            indexed.append(owner)
    if func.attr != "put":
        return
    owner = owner.value if isinstance(owner, ast.Subscript) else owner
    stream = kt.env.streams.get(owner.id) if isinstance(owner, ast.Name) else None
    value = _ty(kt, node.args[0]) if len(node.args) == 1 else None
    if stream is not None and not stream.shape and value is not None:
        out.puts.append(TypedPut(source.range(node.args[0]), owner.id, value, stream.ty))


def type_name(ty: Ty) -> str:
    """A type as it is written in Allo (`Int(16)`, `UInt(9)`, `Fixed(12, 4)`, `float32`)."""
    if ty.kind in ("int", "uint"):
        return f"{'U' * (ty.kind == 'uint')}Int({ty.bits})"
    if ty.kind in ("fixed", "ufixed"):
        return f"{'U' * (ty.kind == 'ufixed')}Fixed({ty.bits}, {ty.frac})"
    if ty.kind in ("float", "bfloat"):
        return f"{ty.kind}{ty.bits}"
    return ty.kind


def expression_at(kernel: Kernel, pos) -> TypedExpression | None:
    """The innermost typed expression of `kernel`'s body around `pos`."""
    around = [e for e in (kernel.typing.expressions if kernel.typing else ()) if e.range.contains(pos)]
    return min(
        around, key=lambda e: (e.range.end.line - e.range.start.line, e.range.end, -e.range.start.column), default=None
    )
