"""Running a `@df.region()` function on numpy arrays: streams, kernels, one generator per PE.

The region's source is read (as Allo reads it: `inspect.getsource`), its annotations evaluated in
the function's own globals and closure, its kernels rewritten (`transform.py`) and compiled under
the user's file name, and every PE of every kernel started with its `get_pid()` values on one
cooperative scheduler (`scheduler.py`). A run that deadlocks is run again from copies of its
inputs with larger FIFOs (`fifos.py`), to tell a FIFO too shallow from a put/get imbalance; a
run that completes records what it left unread in each stream (`fifos.record`).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
import threading
import types as pytypes
import weakref

import numpy as np
from allo_lsp.runner.reference import checks, emulate, fifos, library, typed
from allo_lsp.runner.reference import types as ref_types
from allo_lsp.runner.reference.scheduler import EMPTY, Deadlock, Fifo, FifoArray, Scheduler
from allo_lsp.runner.reference.syntax import is_region
from allo_lsp.runner.reference.transform import REF, KernelTransformer, Unsupported, asks_widths
from allo_lsp.runner.reference.types import ArrayType, ScalarType, StreamType, as_allo_array, convert

_ALLO_NAMES = {
    name: getattr(ref_types, name)
    for name in (
        "Int",
        "UInt",
        "Fixed",
        "UFixed",
        "Stream",
        "ConstExpr",
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "index",
    )
}


def top_directions(fn) -> list[str] | None:
    """How the top function built from region `fn` uses each of its arguments
    (`checks.argument_directions`)."""
    fn = getattr(fn, "__wrapped__", fn)
    fdef, _ = _parse(fn)
    region_args = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    kernels = [s for s in fdef.body if isinstance(s, ast.FunctionDef) and _kernel_decorator(s) is not None]
    legacy = not region_args and any(k.args.args for k in kernels)
    if legacy:
        region_args = [a.arg for a in _legacy_arguments(kernels)]
    return checks.argument_directions(region_args, kernels, legacy)


def run_region(fn, arrays: list | None, generic=None, state: dict | None = None, target: str | None = None) -> None:
    """Run region `fn` on `arrays` (written in place), as Allo's simulator would.

    With `arrays=None` only what `df.build` does happens: the region is read, Allo's build-time
    checks run (`checks.py`: they raise BuildError) and its kernels are rewritten, nothing runs.
    `target` is the build's (`df.build`): for "simulator" Allo's simulator's own build errors apply
    (`typed.check_simulator`). `state` holds the `@ Stateful` arrays of the built module across its calls. Every run's FIFO
    statistics are recorded (`fifos.record`: with the elements a completed run left unread); a
    deadlock carries its diagnosis (`Deadlock.sizing`).
    """
    fn = getattr(fn, "__wrapped__", fn)
    state = {} if state is None else state
    if arrays is None:
        prepare(fn, None, generic, Scheduler(fn.__code__.co_filename), state, target)
        return
    inputs = fifos.snapshot(arrays, state)
    sched = Scheduler(fn.__code__.co_filename)
    completed = False
    try:
        sched.run(prepare(fn, arrays, generic, sched, state, target))
        completed = True
    except Deadlock as dead:
        dead.sizing = fifos.diagnose(
            lambda sched, arrays, state: sched.run(prepare(fn, arrays, generic, sched, state)),
            fn.__code__.co_filename,
            inputs,
            sched,
        )
        if dead.sizing is not None:
            dead.args = (f"{dead.args[0]} Larger FIFOs: {dead.sizing['message']}",)
        raise
    finally:
        fifos.record(fn.__name__, sched, completed)


def prepare(fn, arrays: list | None, generic, sched: Scheduler, state: dict, target: str | None = None) -> list:
    """The PEs of region `fn` on `arrays` (name, pid, a callable giving its generator), its
    streams made on `sched`."""
    fn = getattr(fn, "__wrapped__", fn)
    fdef, ns = _parse(fn)
    _bind_generics(fdef, ns, generic)
    region_args = fdef.args.posonlyargs + fdef.args.args
    kernels = [s for s in fdef.body if isinstance(s, ast.FunctionDef) and _kernel_decorator(s) is not None]
    checks.check_region(fdef, kernels, ns, lambda node: evaluate_type(node, ns, node.lineno))
    # Values carry their Allo width only where a kernel of this region asks for it (the
    # region's streams carry values between its kernels).
    if fn not in _WIDTHS:
        _WIDTHS[fn] = any(asks_widths(k) for k in kernels)
    widths = _WIDTHS[fn]
    # A region without parameters is Allo's older form: the top function's arguments are the
    # kernels' own parameters, in the order kernels first name them, one per distinct name.
    legacy = not region_args and any(k.args.args for k in kernels)
    if legacy:
        region_args = _legacy_arguments(kernels)
        emulate.remark(
            f"region '{fdef.name}' ran in Allo's older form (no parameters: the kernels' own parameters "
            "are its arguments); current Allo rejects it ('args' length mismatch), see ADF040"
        )
    params = [a.arg for a in region_args]
    if arrays is not None:
        if len(arrays) != len(params):
            raise TypeError(f"{fdef.name}() takes {len(params)} arrays ({', '.join(params)}), got {len(arrays)}")
        for arg, array in zip(region_args, arrays):
            ns[arg.arg] = _argument(arg, array, ns)
    pes = []
    for stmt in fdef.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            _declare(stmt, ns, sched, fn.__code__.co_filename, widths)
        elif isinstance(stmt, ast.FunctionDef):
            pes += _kernel_pes(stmt, ns, sched, state, legacy, arrays is None, widths, (fn, generic, target))
        elif isinstance(stmt, ast.Assign):
            # `x = df.pipe(dtype=T, shape=(), depth=4)`, `df.array(df.pipe(...), shape=(P0, P1))`
            # (the older stream declarations) and plain constants.
            exec(compile(ast.Module([stmt], []), sched.user_file, "exec"), ns)
            for target in stmt.targets:
                if isinstance(target, ast.Name) and isinstance(ns.get(target.id), StreamType):
                    ns[target.id] = _fifo(
                        target.id, ns[target.id], sched, (fn.__code__.co_filename, stmt.lineno), widths, ns
                    )
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring
        elif not isinstance(stmt, ast.Pass):
            raise Unsupported(f"a {type(stmt).__name__} statement in a region body", stmt.lineno)
    return pes


def _legacy_arguments(kernels: list[ast.FunctionDef]) -> list[ast.arg]:
    seen: dict[str, ast.arg] = {}
    for kernel in kernels:
        for arg in kernel.args.args:
            seen.setdefault(arg.arg, arg)
    return list(seen.values())


# Per region (or plain) function, alive as long as it is: its source, and its kernels compiled
# (`_compile_kernel`). A module called again, or a region called from a PE on every pass, is
# read and rewritten once, as Allo builds it once.
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_KERNELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_WIDTHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # does a kernel ask a width?
STREAM_TYPES = "__ref_stream_types"  # in a region's names: its streams' StreamTypes, by name


def _parse(fn) -> tuple[ast.FunctionDef, dict]:
    """A fresh tree of `fn` (callers rewrite it) and the names its body sees."""
    if fn not in _SOURCES:
        try:
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise Unsupported(f"region {fn.__name__} without readable source ({exc})", None) from exc
        # Blank lines before it: the tree's lines are the file's (no pass over it to shift them).
        _SOURCES[fn] = ("\n" * (start - 1) + textwrap.dedent("".join(lines)), start)
    source, start = _SOURCES[fn]
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise Unsupported(
            f"syntax this Python cannot parse ({exc.msg}; generic regions need Python 3.12)", start
        ) from exc
    fdef = tree.body[0]
    ns = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            ns[name] = cell.cell_contents
        except ValueError:
            pass
    for name, value in _ALLO_NAMES.items():
        ns.setdefault(name, value)
    return fdef, ns


def _bind_generics(fdef, ns: dict, generic) -> None:
    names = [p.name for p in getattr(fdef, "type_params", [])]
    if not names:
        return
    values = generic if isinstance(generic, tuple) else (generic,)
    if generic is None or len(values) != len(names):
        raise TypeError(f"{fdef.name} takes type parameters [{', '.join(names)}]: call {fdef.name}[...](...)")
    ns.update(zip(names, values))


def evaluate_type(node: ast.expr, ns: dict, line: int):
    """An annotation, evaluated as Allo does, as one of our types."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    scope = dict(ns)
    for name in list(_names(node)):
        found = ref_types.by_name(name)
        if found is not None and (name not in scope or convert(scope[name]) == found):
            scope[name] = found
        elif name in _ALLO_NAMES and _foreign(scope.get(name)):
            scope[name] = _ALLO_NAMES[name]  # the real Allo's (or the stand-in's) `Stream`, `UInt`...
    try:
        value = eval(compile(ast.Expression(node), "<annotation>", "eval"), scope)
    except Exception as exc:
        raise Unsupported(f"the annotation {ast.unparse(node)} ({exc})", line) from exc
    if isinstance(value, (int, float)) or value is None:
        return value
    converted = convert(value)
    if converted is None:
        raise Unsupported(f"the type {ast.unparse(node)}", line)
    return converted


def _foreign(value) -> bool:
    """An object of another `allo` package (the real one, or the test stand-in)."""
    return value is not None and str(getattr(value, "__module__", "")).split(".")[0] == "allo"


def _names(node):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id


def _argument(arg: ast.arg, array, ns: dict):
    kind = evaluate_type(arg.annotation, ns, arg.lineno) if arg.annotation is not None else None
    if isinstance(kind, ScalarType) and np.ndim(array) == 0:
        return kind.host(array)  # a scalar argument of the older API (`mod(A, B, flag, C)`)
    if not isinstance(kind, ArrayType):
        raise Unsupported(f"region parameter '{arg.arg}' without an array type", arg.lineno)
    array = np.asarray(array)
    if tuple(array.shape) != kind.shape:
        # Allo passes a buffer: an array of the same number of elements is read row-major in
        # the declared shape (a reshaped view, so writes reach the caller's array).
        size = int(np.prod(kind.shape))
        if array.size != size or not array.flags.c_contiguous:
            raise ValueError(f"argument '{arg.arg}' has shape {array.shape}, the region declares {kind}")
        array = array.reshape(kind.shape)
    _converted_in_place(array, kind.elem)
    return as_allo_array(array, kind.elem)


def _converted_in_place(array: np.ndarray, elem: ScalarType) -> None:
    """An array of another dtype than its parameter's, as Allo's module call leaves it
    (`LLVMModule.__call__`: `arg.astype(target)` going in, `arg[:] = new_arg` coming out, for
    every array argument): each element converted by numpy (a float64 rounded to float32, a
    float truncated into an int32) and written back, read by the kernel or not. The simulator's
    module only: an emulated AIE module writes back its outputs alone."""
    kind = array.dtype.kind
    if kind not in "biuf" or not array.flags.writeable or emulate.current():
        return
    if elem.whole and array.dtype != elem.numpy:
        with np.errstate(all="ignore"):  # numpy's own conversion of what the type does not hold
            array[...] = array.astype(elem.numpy)
    elif elem.kind == "bfloat" and kind == "f":
        array[...] = library.bf16_array(array)  # ml_dtypes.bfloat16: round to nearest even
    elif elem.kind in ("int", "uint") and not elem.whole and elem.bits < 64 and kind in "biu":
        # Any other width (`Int(4)`, `UInt(12)`): `handle_overflow` wraps each value into it.
        array[...] = elem.cast_array(array)


def _declare(stmt: ast.AnnAssign, ns: dict, sched: Scheduler, file: str, widths: bool) -> None:
    name = stmt.target.id
    kind = evaluate_type(stmt.annotation, ns, stmt.lineno)
    if isinstance(kind, StreamType):
        ns[name] = _fifo(name, kind, sched, (file, stmt.lineno), widths, ns)
    elif stmt.value is not None:  # ConstExpr declarations
        ns[name] = eval(compile(ast.Expression(stmt.value), sched.user_file, "eval"), ns)


def _fifo(name: str, kind: StreamType, sched: Scheduler, declared: tuple, widths: bool, ns: dict):
    ns.setdefault(STREAM_TYPES, {})[name] = kind  # the kernels' typing reads the element types
    store = _storer(name, kind.elem, widths)
    if kind.dims:
        return FifoArray(sched, name, kind.depth, kind.dims, store, declared)
    return sched.fifo(name, kind.depth, store, declared)


def _storer(name: str, elem, widths: bool):
    if isinstance(elem, ArrayType):  # a block element: a copy of the right type travels

        def block(value):
            value = np.asarray(value)
            if value.shape != tuple(elem.shape):
                # Allo builds the put (StreamPutOp takes any type) and its simulator lowers a
                # block stream's put as a copy of that shape: what it does with another is not ours to guess.
                raise Unsupported(f"a put of shape {value.shape} into '{name}', a stream of {elem} blocks", None)
            return as_allo_array(elem.elem.cast_array(value), elem.elem)

        return block
    return (None if widths else elem.plain_cast()) or elem.cast


def _kernel_decorator(fdef: ast.FunctionDef):
    return next(
        (d for d in fdef.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("kernel")), None
    )


def _kernel_pes(
    fdef: ast.FunctionDef,
    ns: dict,
    sched: Scheduler,
    state: dict,
    legacy: bool,
    build_only: bool,
    widths: bool,
    region: tuple,
) -> list:
    decorator = _kernel_decorator(fdef)
    if decorator is None:
        return []  # a helper defined in the region
    keywords = {k.arg: k.value for k in decorator.keywords}
    mapping = eval(compile(ast.Expression(keywords["mapping"]), sched.user_file, "eval"), ns)
    mapping = [int(m) for m in (mapping if isinstance(mapping, (list, tuple)) else [mapping])]
    if legacy:
        args = [a.arg for a in fdef.args.args]  # bound by the parameter's own name
    else:
        args = [e.id for e in keywords["args"].elts] if "args" in keywords else []
    fn, arg_types, streams = _compile_kernel(fdef, ns, sched, state, widths, region, tuple(mapping))
    if build_only:
        return []
    pes = []
    for pid in itertools.product(*(range(m) for m in mapping)):
        name = "_".join([fdef.name, *map(str, pid)])
        for stream, ops in streams.items():
            sched.users.setdefault(stream, set()).update((name, op) for op in ops)
        bound = [_shard(ns[a], t, pid, mapping) for a, t in zip(args, arg_types)]
        pes.append((name, pid, (lambda f=fn, b=bound: f(*b))))
    return pes


def _shard(array, kind, pid: tuple, mapping: list):
    """A PE's part of an array under a layout `@ [S(0), R]` (local shape = global / mapping)."""
    if not isinstance(kind, ArrayType) or not kind.layout:
        return array
    index = []
    specs = list(kind.layout) if isinstance(kind.layout, (list, tuple)) else None
    if specs is None or len(specs) != len(kind.shape) or not all(_layout_spec(s) for s in specs):
        raise Unsupported(f"the layout {kind.layout!r}", None)
    for axis, spec in enumerate(specs):
        shard = spec[1] if spec[0] == "S" else None
        if shard is None:
            index.append(slice(None))
            continue
        size = kind.shape[axis] // mapping[shard]
        index.append(slice(pid[shard] * size, (pid[shard] + 1) * size))
    return array[tuple(index)]


def _layout_spec(spec) -> bool:
    """`S(i)` is ("S", i), `R` is ("R",): the shim's and the stand-in's spelling."""
    return isinstance(spec, tuple) and (spec == ("R",) or (len(spec) == 2 and spec[0] == "S"))


def _compile_kernel(
    fdef: ast.FunctionDef, ns: dict, sched: Scheduler, state: dict, widths: bool, region: tuple, mapping: tuple
):
    """The kernel as a generator function over this run's streams and runtime. `region` (the
    region function, its generic arguments) keys the compiled code: rewritten once per design."""
    fn, generic, target = region
    try:
        key = (fdef.lineno, fdef.name, generic, widths, target, mapping)  # the target picks the types and checks
        compiled = _KERNELS.setdefault(fn, {}).get(key)
    except TypeError:  # generic arguments that are no dict key: compiled each time
        key = compiled = None
    if compiled is None:
        compiled = _transform_kernel(fdef, ns, sched, widths, target, mapping)
        if key is not None:
            _KERNELS[fn][key] = compiled
    code, table, arg_types, streams = compiled
    name = fdef.name
    scope = dict(ns)

    def sub_region(f, arrays, generic):
        # A region called from a PE keeps its own `@ Stateful` locals per calling PE.
        inner = state.setdefault(("region", name, sched.local.pe, getattr(f, "__name__", "")), {})
        return prepare(f, arrays, generic, sched, inner)

    scope[REF] = library.Runtime(
        sched, table, sub_region, state, name, suspends=True, widths=widths, compile_helper=compile_function
    )
    scope["__ref_EMPTY"], scope["__ref_int"] = EMPTY, int
    scope.update(typed.HELPERS)
    exec(code, scope)
    return scope[name], arg_types, streams


def _annotations(fdef: ast.FunctionDef, ns: dict):
    """The table the rewritten code reads its evaluated annotations from (`type_index` adds one
    and gives its index), and the parameters' evaluated types (None where not annotated)."""
    table: list = []

    def type_index(node: ast.expr) -> int:
        table.append(evaluate_type(node, ns, node.lineno))
        return len(table) - 1

    arg_types = [
        evaluate_type(a.annotation, ns, a.lineno) if a.annotation is not None else None for a in fdef.args.args
    ]
    return table, type_index, arg_types


def _transform_kernel(
    fdef: ast.FunctionDef, ns: dict, sched: Scheduler, widths: bool, target: str | None, mapping: tuple
):
    """The kernel rewritten (`transform.py`) and compiled under the user's file name: the code,
    its evaluated annotations, its parameters' types, and what it does on which stream."""
    table, type_index, arg_types = _annotations(fdef, ns)
    is_allo = lambda name: _is_allo(ns.get(name), name)  # noqa: E731
    per_pe = mapping if target != "aie" else None  # AIE builds every branch (unroll=False)
    types = typed.kernel_types(
        fdef,
        ns,
        arg_types,
        lambda node: evaluate_type(node, ns, node.lineno),
        is_allo,
        ns.get(STREAM_TYPES, {}),
        per_pe,
    )
    if target == "simulator":
        typed.check_simulator(fdef, types, is_allo)
    elif target == "aie":
        types = typed.AieTypes(types)
    transformer = KernelTransformer(
        is_allo=lambda name: _is_allo(ns.get(name), name),
        is_region=lambda name: is_region(ns.get(name)),
        evaluate_type=type_index,
        is_stream=lambda name: isinstance(ns.get(name), (Fifo, FifoArray)),
        suspends=True,
        plain_int=lambda index: (
            None if widths or not isinstance(table[index], ScalarType) else table[index].plain_int()
        ),
        flat_arrays={}
        if widths
        else {
            a.arg: (t.shape, t.elem.plain_int())
            for a, t in zip(fdef.args.args, arg_types)
            if isinstance(t, ArrayType) and not t.layout
        },
        types=types,
    )
    fdef = transformer.visit(fdef)
    fdef.decorator_list = []
    for a in fdef.args.args:
        a.annotation = None
    fdef.returns = None
    module = ast.fix_missing_locations(ast.Module([fdef], []))
    return compile(module, sched.user_file, "exec"), table, arg_types, transformer.streams


def _is_allo(value, name: str) -> bool:
    if isinstance(value, pytypes.ModuleType):
        return value.__name__ == "allo" or value.__name__.startswith("allo.")
    return value is None and name in ("allo", "df")


class _Solo:
    """The scheduler a plain function sees: one PE, no streams."""

    def __init__(self, name: str) -> None:
        self.local = threading.local()
        self.local.pe, self.local.pid = name, (0,)


def compile_function(fn):
    """A plain Allo function (`allo.customize(fn).build()`, or one a kernel calls) run with Allo's
    storage semantics: its body rewritten as a kernel body is (`transform.py`, its arithmetic in
    Allo's types, `typed.py`), its arguments in their annotated types and its result in the return type."""
    fdef, ns = _parse(fn)
    if not isinstance(fdef, ast.FunctionDef):
        raise Unsupported(f"allo.customize of {fn!r}", None)
    table, type_index, arg_types = _annotations(fdef, ns)
    result_type = evaluate_type(fdef.returns, ns, fdef.lineno) if fdef.returns is not None else None
    is_allo = lambda n: _is_allo(ns.get(n), n)  # noqa: E731
    types = typed.kernel_types(fdef, ns, arg_types, lambda node: evaluate_type(node, ns, node.lineno), is_allo, {})
    fdef = KernelTransformer(is_allo, lambda n: is_region(ns.get(n)), type_index, types=types).visit(fdef)
    fdef.decorator_list, fdef.returns = [], None
    for a in fdef.args.args:
        a.annotation = None
    scope = dict(ns)
    solo = _Solo(fdef.name)
    scope["__ref_int"] = int
    scope.update(typed.HELPERS)
    scope[REF] = library.Runtime(solo, table, run_region, {}, fdef.name, compile_helper=compile_function)
    exec(compile(ast.fix_missing_locations(ast.Module([fdef], [])), fn.__code__.co_filename, "exec"), scope)
    body = scope[fdef.name]

    def call(*args):
        typed = [_typed(a, t) for a, t in zip(args, arg_types)]
        solo.local.pe, solo.local.pid = fdef.name, (0,)
        result = body(*typed)
        if isinstance(result_type, ArrayType):
            return np.asarray(result_type.elem.cast_array(np.broadcast_to(result, result_type.shape))).copy()
        if isinstance(result_type, ScalarType):
            return result_type.cast(result)
        return result

    return call


def _typed(value, kind):
    if isinstance(kind, ArrayType):
        return as_allo_array(np.asarray(value), kind.elem)
    if isinstance(kind, ScalarType):
        return kind.host(value)
    return value
