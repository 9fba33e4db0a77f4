"""What transformed kernels call (`__ref.*`): typed stores, subscripts, `allo.grid`, `get_pid`,
Allo's library functions, and sub-regions."""

from __future__ import annotations

import functools
import itertools
import weakref

import numpy as np
from allo_lsp.runner.reference import emulate, values
from allo_lsp.runner.reference.transform import Unsupported
from allo_lsp.runner.reference.types import AlloArray, ArrayType, ScalarType, Stateful, as_allo_array, sized


def _relu(x):
    return np.maximum(x, 0)


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def grid(*dims, name=None):
    """`allo.grid(M, N)` / `allo.reduction(...)`; `name=` labels the loop for schedules only.
    One dimension gives its indices themselves (`for i in allo.grid(N)`), not 1-tuples."""
    if len(dims) == 1:
        return range(int(dims[0]))
    return itertools.product(*(range(int(d)) for d in dims))


def gather(streams, line=None):
    """`df.gather([pipe[0], pipe[1]])` / `df.gather(pipe[:])`: one element from each stream, in
    order, stacked (the streams carry blocks). A generator: the kernel `yield from`s it."""
    values = []
    for s in streams:
        values.append(np.asarray((yield from s.wait_get(line))))
    return np.stack(values)


def scatter(buffer, streams, line=None):
    """`df.scatter(buf, pipes)`: `buf[i]` goes to the i-th stream (a generator, as `gather`)."""
    streams = list(streams)
    if len(streams) != len(buffer):
        raise ValueError(f"df.scatter of {len(buffer)} rows to {len(streams)} streams")
    for row, s in zip(buffer, streams):
        yield from s.wait_put(row, line)


# The signed (input, output) widths of the integer pairs in Allo's AIE
# `matmul_external_kernel_config_map` (allo/backend/aie/utils.py): mlir-aie's mm.cc kernels.
AIE_MATMUL_WIDTHS = frozenset({(8, 16), (8, 32), (16, 32)})


class Product(AlloArray):
    """`allo.matmul` of two same-typed int8 or int16 arrays under AIE emulation: the value Allo
    types it (the inputs' type, as `infer.py`'s `visit_library_op`; Allo's simulator computes
    that `linalg.matmul`), and `exact`, the sum of products in int64, for a store that casts it.
    A view or an operation of it is a plain value of the inputs' type (`exact` None)."""

    exact = None

    def __array_finalize__(self, obj) -> None:
        super().__array_finalize__(obj)
        self.exact = None


def bf16_array(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (to nearest even), as `types._bfloat16` rounds one."""
    bits = np.ascontiguousarray(values, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _sequential(a, b, kind) -> np.ndarray:
    """`linalg.matmul` of floats as Allo's simulator lowers it: loops with the reduction innermost,
    `C[i, j] = C[i, j] + A[i, k] * B[k, j]` from a zero fill, each multiply and add rounded in the
    element type (numpy's matmul runs BLAS, whose blocked, fused sums round otherwise)."""
    a, b = np.asarray(a), np.asarray(b)
    dtype = np.result_type(a.dtype, b.dtype)
    total = np.zeros(np.broadcast_shapes(a.shape[:-1] + (1,), b.shape[:-2] + (1, b.shape[-1])), dtype)
    bf16 = kind is not None and kind.kind == "bfloat"
    for k in range(a.shape[-1]):
        term = a[..., k : k + 1] * b[..., k : k + 1, :]
        if bf16:
            term = bf16_array(term)
        total = total + term
        if bf16:
            total = bf16_array(total)
    return total


def _matmul(a, b):
    kind = getattr(a, "allo_type", None)
    floats = np.asarray(a).dtype.kind == "f" and np.asarray(b).dtype.kind == "f"
    if floats and emulate.current() != "aie" and np.ndim(a) >= 2 and np.ndim(b) >= 2:
        return _sequential(a, b, kind)
    other = getattr(b, "allo_type", None)
    if (
        emulate.current() != "aie"
        and kind is not None
        and other is not None
        and kind != other
        and {kind.kind, other.kind} <= {"int", "uint"}
        and max(kind.bits, other.bits) <= 32
    ):
        # linalg.matmul in the first input's type (visit_library_op): each input cast to it with
        # cast_signed (a narrower one sign-extended, a uint8 200 is -56; a wider one truncated),
        # muli/addi wrapping in it. numpy would promote to a type holding both.
        signed = np.asarray(b, np.int64)
        if other.kind == "uint":
            signed = np.where(signed >= 1 << (other.bits - 1), signed - (1 << other.bits), signed)
        exact = np.matmul(np.asarray(a, np.int64), signed)
        return as_allo_array(kind.cast_array(exact), kind)
    product = np.matmul(a, b)
    if (
        emulate.current() == "aie"
        and kind is not None
        and kind == getattr(b, "allo_type", None)
        and kind.kind == "int"
        and any(kind.bits == bits for bits, _ in AIE_MATMUL_WIDTHS)
        and np.ndim(a) == np.ndim(b) == 2
    ):
        wide = np.asarray(product).view(Product)
        wide.allo_type = kind
        wide.exact = np.matmul(np.asarray(a, np.int64), np.asarray(b, np.int64))
        return wide
    return product


def cast_into(value, elem: ScalarType):
    """`value` as a store into `elem` elements casts it. Allo's AIE backend runs a matmul whose
    result is cast at once (its buffer used by the zero fill, the matmul and the `cast_from`
    linalg.generic alone: `x: int32[...] = allo.matmul(a, b)`, `c[:, :] = ...`) as the external
    kernel of (input type, cast target), which accumulates in the target type: int16 x int16
    into int32 is the exact sum, not the int16 one sign-extended (`inject_external_kernels`)."""
    exact = getattr(value, "exact", None)
    if exact is None or elem.kind != "int" or (value.allo_type.bits, elem.bits) not in AIE_MATMUL_WIDTHS:
        return value
    return exact


# Allo's library calls with a numpy meaning (results take the destination's type when stored).
LIBRARY = {
    "matmul": _matmul,
    "bmm": np.matmul,
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "tanh": np.tanh,
    "relu": _relu,
    "softmax": _softmax,
    "transpose": np.transpose,
    "copy": np.copy,
    "max": np.max,
    "min": np.min,
    "sum": np.sum,
    "grid": grid,
    "reduction": grid,
    "gather": gather,
    "scatter": scatter,
}

_HELPERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> its typed call
STORED = object()  # `assign_item` wrote into an array: nothing to write back
_MEMORYVIEW_CODE = {1: "b", 2: "h", 4: "i", 8: "q"}  # struct codes by size (upper case: unsigned)


class _Flat:
    """Row-major element access (`Runtime.flat`) to an array that memory cannot give flat as its
    Allo type (another dtype, not contiguous, a width-carrying kernel): numpy's `.flat`, each
    element read and stored by the runtime's rules."""

    __slots__ = ("runtime", "array")

    def __init__(self, runtime, array) -> None:
        self.runtime, self.array = runtime, array

    def __getitem__(self, offset):
        return self.runtime.element(self.array, self.array.flat[offset])

    def __setitem__(self, offset, value) -> None:
        self.array.flat[offset] = self.runtime.store_for(self.array, value)


class Runtime:
    def __init__(
        self,
        sched,
        table: list,
        run_region,
        state: dict | None = None,
        kernel: str = "",
        suspends: bool = False,
        widths: bool = True,
        compile_helper=None,
    ) -> None:
        self.sched = sched
        self.compile_helper = compile_helper  # region.compile_function (given: region imports this module)
        self.widths = widths  # integers keep their Allo width (`types.sized`): a kernel asks for it
        self.suspends = suspends  # a kernel (a generator): `run_region` gives the region's PEs
        self.table = table  # the kernel's annotations, evaluated once
        self.run_region = run_region
        self.state = state if state is not None else {}  # `@ Stateful` arrays of the built module
        self.kernel = kernel
        self.STORED = STORED
        # The builtins the rewritten code needs, reached through `__ref`: a design may rebind
        # the names (`from allo.ir.types import bool`).
        self.range, self.slice = range, slice

    def helper(self, fn, line: int | None = None):
        """A plain function the kernel calls, compiled as `allo.customize` functions are
        (`region.compile_function`: its body in its types, the result in its return type)."""
        compiled = _HELPERS.get(fn)
        if compiled is None:
            compiled = _HELPERS[fn] = self.compile_helper(fn)
        return compiled

    def declare(self, index: int, value, line: int | None = None):
        kind = self.table[index]
        if isinstance(kind, Stateful):
            return self._stateful(index, kind.kind, value)
        if isinstance(kind, ArrayType):
            data = np.broadcast_to(np.asarray(cast_into(value, kind.elem)), kind.shape)
            return as_allo_array(kind.elem.cast_array(data).copy(), kind.elem)
        return kind.cast(value) if isinstance(kind, ScalarType) else value

    def _stateful(self, index: int, kind, value):
        """A `@ Stateful` (`stateful(T)`) local is static: initialised once per PE of the built
        module, then it keeps its value from one pass of its declaration to the next, and from
        one call of the module to the next. Arrays are updated in place; a scalar's stores go
        through `cast`, which records them."""
        key = (self.kernel, self.sched.local.pe, index)
        if key not in self.state:
            if isinstance(kind, ArrayType):
                data = np.broadcast_to(np.asarray(value), kind.shape)
                self.state[key] = as_allo_array(kind.elem.cast_array(data).copy(), kind.elem)
            else:
                self.state[key] = kind.cast(value)
        return self.state[key]

    def cast(self, index: int, value):
        kind = self.table[index]
        if isinstance(kind, Stateful):
            if isinstance(kind.kind, ScalarType):
                stored = self.state[(self.kernel, self.sched.local.pe, index)] = kind.kind.cast(value)
                return stored
            kind = kind.kind
        if isinstance(kind, ArrayType):
            return as_allo_array(kind.elem.cast_array(cast_into(value, kind.elem)), kind.elem)
        return kind.cast(value) if isinstance(kind, ScalarType) else value

    def store_for(self, array, value):
        """`value` as `array`'s elements store it (one element, or a slice's worth)."""
        elem = getattr(array, "allo_type", None)
        if elem is None:
            return value
        if isinstance(value, (np.ndarray, list, tuple)) and np.ndim(value):
            return elem.cast_array(cast_into(value, elem))
        return elem.cast(value)

    def load(self, container, index, line):
        if isinstance(container, np.ndarray):
            return self.element(container, container[values.address(container, index, line)])
        if values.is_integer(container):
            return values.get_bits(container, index, line)
        if isinstance(container, (float, np.floating)):
            raise Unsupported("bit access on a float value", line)
        return container[index]

    def element(self, container: np.ndarray, value):
        """An element read from `container`, as its Allo type holds it."""
        elem = getattr(container, "allo_type", None)
        if not isinstance(value, np.generic):
            return value  # a row or a slice
        if elem is not None and value.dtype == elem.numpy and elem.whole:
            # Stored as numpy stores this type: nothing to round or wrap.
            if elem.kind in ("int", "uint"):
                return sized(elem.bits)(int(value)) if self.widths else int(value)
            return value
        if elem is not None:
            # The element as its Allo type holds it, whatever array the caller passed (a
            # float32 array for a bfloat16 parameter is rounded, an int64 one wrapped); an
            # integer is exact from here on (numpy would wrap `int8 * int8` in int8; Allo
            # widens) and keeps its Allo width for bit methods. A fixed-point element of the
            # caller's float array is converted as Allo's call converts it (toward zero).
            return elem.host(value)
        if isinstance(value, np.integer):
            return sized(value.dtype.itemsize * 8)(int(value))
        return value

    def flat(self, array, shape: tuple, line):
        """`array` addressed by row-major offset, once per call of a kernel (`transform.py`
        writes `A[i, j]` of a parameter as `flat[i * N + j]`): a memoryview of an integer array
        stored as its Allo type (elements are plain ints; the transform wraps what it stores),
        numpy's flat view of such a float array, else `_Flat` (each element through `element`)."""
        if np.shape(array) != shape:  # the offsets the transform computes would be another array's
            raise Unsupported(f"a kernel parameter of shape {shape} given an array of shape {np.shape(array)}", line)
        elem = getattr(array, "allo_type", None)
        if (
            isinstance(array, np.ndarray)
            and elem is not None
            and elem.whole
            and array.dtype == elem.numpy
            and array.dtype.isnative
            and array.flags.c_contiguous
        ):
            if elem.kind in ("int", "uint") and not self.widths:
                code = _MEMORYVIEW_CODE[array.dtype.itemsize]
                return memoryview(array).cast("B").cast(code.upper() if elem.kind == "uint" else code)
            if elem.kind == "float":
                return array.reshape(-1)
        return _Flat(self, array)

    def assign_item(self, container, index, value, line):
        """Store into an array (returns STORED) or set bits of a value (returns the new value)."""
        if isinstance(container, np.ndarray):
            container[values.address(container, index, line)] = self.store_for(container, value)
            return STORED
        if values.is_integer(container):
            return values.set_bits(container, index, value, line)
        if isinstance(container, (float, np.floating)):
            raise Unsupported("bit assignment on a float value", line)
        container[index] = value
        return STORED

    def scf_range(self, lower: int, upper: int, step: int, line: int) -> range:
        """The `scf.for` of a step known only at run time (`build_single_for`). MLIR requires it
        positive; lowered, the loop steps from `lower` while below `upper`: a step of 0 or less
        with `lower < upper` never ends (and indexes past the arrays), none runs otherwise."""
        if step > 0:
            return range(lower, upper, step)
        if lower < upper:
            raise Unsupported(
                f"a loop whose step is {step} when it runs",
                line,
                f"the loop at line {line} runs with a step of {step}: Allo's scf.for needs a positive step, and "
                "from its lower bound below its upper one it never ends (undefined behaviour, not run here)",
            )
        return range(0)

    def elementwise(self, fn, a, b, kind: str, bits: int, frac: int):
        """`fn` (`typed.elementwise`: one element's operation in Allo's types) of `a` and `b`,
        broadcast as NumPy broadcasts, into an array of the result's type."""
        elem = ScalarType(kind, bits, frac)
        left, right = np.broadcast_arrays(self._elements(a), self._elements(b))
        values = np.array([fn(x, y) for x, y in zip(left.flat, right.flat)], dtype=object)
        return as_allo_array(elem.cast_array(values.reshape(left.shape)), elem)

    def _elements(self, value) -> np.ndarray:
        """`value`'s elements as the kernel's code reads them (an object array: exact integers)."""
        if not isinstance(value, np.ndarray) or value.ndim == 0:
            return np.array(value, dtype=object)
        items = [self.element(value, v) for v in value.reshape(-1)]
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(value.shape)

    def method(self, name: str, value, line):
        return values.method(name, value, line)

    def typed_method(self, name: str, value, kind: str, bits: int, line):
        return values.typed_method(name, value, kind, bits, line)

    def allo(self, name: str, line: int):
        if name == "get_pid":
            return self._pid
        if name in ("gather", "scatter"):
            return functools.partial(LIBRARY[name], line=line)  # a deadlock there names its line
        if name in LIBRARY:
            return LIBRARY[name]
        raise Unsupported(f"allo.{name}", line)

    def _pid(self):
        pid = self.sched.local.pid
        return pid[0] if len(pid) == 1 else pid

    def region(self, fn, generic):
        """A region called from a kernel: a generator that hands its PEs to the scheduler, which
        resumes the caller once they have all ended. From a plain function: run at once."""
        if not self.suspends:
            return lambda *arrays: self.run_region(fn, list(arrays), generic)

        def call(*arrays):
            yield self.run_region(fn, list(arrays), generic)

        return call
