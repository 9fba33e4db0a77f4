"""Small numeric designs across Allo's types (issue 27), each with the value Allo a098603f
computes for it, derived from its source and named in the case: loop variables (`index`) among
ints and floats, bit gets, slices and sets on negative and unsigned values, float16 and bfloat16
chains, float32 accumulation, min/max of mixed types, casts, compound assignments on narrow
types, stream puts and gets, scalar arguments and `allo.matmul`. Each design runs through the
executor as a user's `df.build(top, target="simulator")`."""

import numpy as np
import pytest
from allo_lsp.runner.reference.typed import MLIRError

from tests.runner.reference_harness import run

f32, f16 = np.float32, np.float16


def _kernel(tmp_path, body: str, out: str = "int32", n: int = 1, prelude: str = "") -> list:
    lines = "\n".join(f"            {line}" for line in body.strip().splitlines())
    prelude = "\n".join(f"    {line}" for line in prelude.splitlines())
    source = f"""
{prelude}
    @df.region()
    def top(R: {out}[{n}]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: {out}[{n}]):
{lines}
    """
    result = np.zeros(n, np.dtype(out))
    run(tmp_path, source, result)
    return result.tolist()


@pytest.mark.parametrize(
    ("body", "out", "n", "expected", "rule"),
    [
        # loop variables: `index`, 32 bits for the typing rules
        ("for i in range(4):\n    r[i] = i / 2", "int32", 4, [0, 0, 1, 1], "div_rule (Index, Int) is Int(32): divsi"),
        ("for i in range(4):\n    r[i] = i - 5", "int32", 4, [-5, -4, -3, -2], "add_sub_rule (Index, Int): Int(34)"),
        ("for i in range(3):\n    r[i] = i * 0.5", "float32", 3, [0.0, 0.5, 1.0], "IndexCastOp to i32, SIToFPOp"),
        ("for i, j in allo.grid(2, 2):\n    r[i * 2 + j] = i - j", "int32", 4, [0, -1, 1, 0], "grid: two indices"),
        ("for i in range(3):\n    r[i] = max(i - 1, 0)", "int32", 3, [0, 0, 1], "select_rule Int(34): MaxSIOp"),
        ("x = 0\nfor i in range(4):\n    x = i\nr[0] = x", "int32", 1, [3], "visit_Assign: x is int32, IndexCastOp"),
        (
            "for i in range(3):\n    r[i] = float(i) * 0.1",
            "float32",
            3,
            [float(f32(i) * f32(0.1)) for i in range(3)],
            "float() is float32, the literal float32: mulf in float32",
        ),
        # bit gets, slices and sets (GetIntBitOp/GetIntSliceOp are unsigned, widened with ExtUI)
        ("a: int8 = -1\nr[0] = a[7]", "int32", 1, [1], "a bit is UInt(1)"),
        ("a: int8 = -2\nr[0] = a[0:4]", "int32", 1, [14], "a slice of 4 bits is UInt(4)"),
        ("a: int8 = -2\nr[0] = a[0:4] - 15", "int32", 1, [-1], "add_sub_rule (UInt(4), Int(32)): Int(33)"),
        ("a: int16 = -1\nr[0] = a[4:12]", "int32", 1, [255], "UInt(8) zero-extended"),
        ("a: int16 = -1\nb: int8 = a[4:12]\nr[0] = b", "int32", 1, [-1], "UInt(8) stored into int8: its bits"),
        ("a: uint8 = 200\nr[0] = a[7] + a[6]", "int32", 1, [2], "UInt(1) + UInt(1) is UInt(2)"),
        ("a: int8 = 0\na[7] = 1\nr[0] = a", "int32", 1, [-128], "SetIntBitOp: the sign bit of an int8"),
        ("a: int8 = -1\na[0:4] = 0\nr[0] = a", "int32", 1, [-16], "SetIntSliceOp"),
        # floats: float16, bfloat16, float32 and float64 per operation
        (
            "h: float16 = 0.1\nr[0] = h * 3.0 + h",
            "float32",
            1,
            [float(f32(f32(f16(0.1)) * f32(3.0)) + f32(f16(0.1)))],
            "(float16, float32) is float32: ExtFOp, then mulf/addf in float32",
        ),
        (
            "h: float16 = 0.1\ng: float16 = 0.2\nr[0] = h + g",
            "float32",
            1,
            [float(f16(f16(0.1) + f16(0.2)))],
            "float16 + float16 is float16",
        ),
        ("acc: float16 = 0.0\nfor i in range(2100):\n    acc += 1.0\nr[0] = acc", "float32", 1, [2048.0], "truncf"),
        ("b: bfloat16 = 0.0\nfor i in range(300):\n    b += 1.0\nr[0] = b", "float32", 1, [256.0], "bf16 rounds"),
        ("b: bfloat16 = 1.5\nr[0] = b * b + 0.1", "float32", 1, [float(f32(2.25) + f32(0.1))], "bf16 * bf16, + f32"),
        (
            "acc: float32 = 0.0\nfor i in range(10):\n    acc += 0.1\nr[0] = acc",
            "float32",
            1,
            [1.0000001192092896],
            "addf in float32 each step (Python's float sum is 0.9999999999999999)",
        ),
        ("d: float64 = 0.1\nr[0] = d * 3", "float32", 1, [float(f32(0.1 * 3))], "(Float(64), Int): float64"),
        ("f: float32 = 1.5\ng: float64 = f / 3\nr[0] = g", "float32", 1, [0.5], "float32 / int32 is float32"),
        # casts
        ("f: float32 = 3.7\nr[0] = float(int(f)) + 0.5", "float32", 1, [3.5], "FPToSIOp then SIToFPOp"),
        ("a: int8 = 3\nf: float32 = a / 2\nr[0] = f", "float32", 1, [1.0], "int / int is divsi before the cast"),
        ("a: uint32 = 4294967295\nf: float32 = a\nr[0] = f", "float32", 1, [4294967296.0], "UIToFPOp rounds"),
        ("a: int32 = -1\nu: uint32 = a\nf: float32 = u\nr[0] = f", "float32", 1, [4294967296.0], "UIToFPOp"),
        ("h: float16 = 2.75\nr[0] = int(h)", "int32", 1, [2], "FPToSIOp toward zero"),
        # min/max of mixed types (select_rule)
        ("a: uint8 = 200\nb: int8 = -1\nr[0] = min(a, b)", "int32", 1, [-1], "Int(9): MinSIOp"),
        ("a: int8 = -100\nb: int8 = 100\nr[0] = min(a, b) * max(a, b)", "int32", 1, [-10000], "Int(8) x Int(8)"),
        # compound assignments on narrow types (visit_AugAssign: the operation's type, then a cast)
        ("x: int8 = 100\nx += 100\nr[0] = x", "int32", 1, [-56], "Int(33), TruncIOp to int8"),
        ("x: uint8 = 250\nx += 10\nr[0] = x", "int32", 1, [4], "TruncIOp"),
        ("s: int16 = 0\nfor i in range(300):\n    s += 200\nr[0] = s", "int32", 1, [-5536], "int16 wraps"),
        ("c: uint8 = 0\nfor i in range(300):\n    c = c + 1\nr[0] = c", "int32", 1, [44], "uint8 wraps"),
        # nested expressions with literals
        ("a: int8 = 127\nr[0] = (a + 1) * 2 - 3", "int32", 1, [253], "Int(33) x Int(32): no int8 wrap"),
        ("a: int32 = 7\nb: int32 = -2\nr[0] = a % b + a / b", "int32", 1, [-2], "remsi 1, divsi -3"),
        ("a: uint8 = 3\nb: uint8 = 5\nc: uint8 = a - b\nr[0] = c", "int32", 1, [254], "UInt(9) 510 into uint8"),
        ("x = 0\nx = x + 0.7\nx = x + 0.7\nr[0] = x", "int32", 1, [0], "an int32 local: FPToSIOp each time"),
    ],
)
def test_a_numeric_design_computes_what_allo_computes(tmp_path, body, out, n, expected, rule):
    prelude = "from allo.ir.types import float16, float64" if "float16" in body or "float64" in body else ""
    assert _kernel(tmp_path, body, out, n, prelude) == expected, rule


def _streamed(tmp_path, put: str, get: str, stream: str, out: str = "int32"):
    source = f"""
    @df.region()
    def top(A: int8[2], R: {out}[1]):
        s: Stream[{stream}, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int8[2]):
            {put}

        @df.kernel(mapping=[1], args=[R])
        def consumer(r: {out}[1]):
            {get}
    """
    result = np.zeros(1, np.dtype(out))
    run(tmp_path, source, np.array([-15, 100], np.int8), result)
    return result.tolist()


@pytest.mark.parametrize(
    ("put", "get", "stream", "out", "expected", "rule"),
    [
        ("x: uint8 = 200\n            s.put(x)", "r[0] = s.get()", "int32", "int32", [200], "ExtUIOp"),
        ("s.put(a[0])", "r[0] = s.get()", "int32", "int32", [241], "ExtUIOp of an i8 -15: 241"),
        (
            "x: int32 = 300\n            s.put(x)",
            "v: int8 = s.get()\n            r[0] = v",
            "int8",
            "int8",
            [44],
            "TruncIOp",
        ),
        ("s.put(a[1] + a[1])", "v: int8 = s.get()\n            r[0] = v", "int8", "int8", [-56], "Int(9) TruncIOp"),
        ("s.put(300)", "v: int8 = s.get()\n            r[0] = v", "int8", "int8", [44], "an i32 literal, TruncIOp"),
        ("s.put(a[0] < a[1])", "r[0] = s.get()", "int32", "int32", [1], "a comparison's i1, ExtUIOp: 1"),
        (
            "x: uint8 = 255\n            s.put(x)",
            "v: uint8 = s.get()\n            r[0] = v + 1",
            "uint8",
            "int32",
            [256],
            "UInt(9)",
        ),
    ],
)
def test_a_stream_converts_as_the_simulator_does(tmp_path, put, get, stream, out, expected, rule):
    # allo/backend/simulator.py _process_function_streams: integers of another width are
    # truncated or zero-extended (a signless iN is never `is_signed`).
    assert _streamed(tmp_path, put, get, stream, out) == expected, rule


def test_a_comparison_put_into_a_float_stream_does_not_build_for_the_simulator(tmp_path):
    # The i1 meets no conversion into an f32 FIFO (_process_function_streams converts integers
    # only): its memref.store fails the verifier in LLVMOMPModule's lowering. The old code put 1.0.
    with pytest.raises(MLIRError, match="'memref.store' op failed to verify"):
        _streamed(tmp_path, "s.put(a[0] < a[1])", "v: float32 = s.get()\n            r[0] = v", "float32", "float32")


def test_a_scalar_argument_of_one_element(tmp_path):
    # An int32[1] argument is a memref of one element: read, computed in its types, written back.
    source = """
    @df.region()
    def top(N: int32[1], R: int32[1]):
        @df.kernel(mapping=[1], args=[N, R])
        def k(n: int32[1], r: int32[1]):
            acc: int8 = 0
            for i in range(n[0]):
                acc += 50
            r[0] = acc + n[0]
    """
    result = np.zeros(1, np.int32)
    run(tmp_path, source, np.array([3], np.int32), result)
    assert result.tolist() == [-106 + 3]  # 150 wraps in int8 (TruncIOp at each +=), then Int(33)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_allo_matmul_of_floats_accumulates_in_order(tmp_path, dtype):
    # A float allo.matmul is linalg.matmul of the inputs' type (visit_library_op), lowered to loops
    # with the reduction innermost: C[i, j] += A[i, k] * B[k, j] from a zero fill, each mulf and
    # addf rounded in the element type. numpy's matmul (BLAS) sums in blocks with fused
    # multiply-adds: the old code differed in most elements.
    storage = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 32)).astype(storage)
    b = rng.standard_normal((32, 4)).astype(storage)
    if dtype == "bfloat16":
        a, b = (np.round(x * 8) / 8 for x in (a, b))  # values bfloat16 holds exactly
    source = f"""
    from allo.ir.types import float16
    @df.region()
    def top(A: {dtype}[4, 32], B: {dtype}[32, 4], C: {dtype}[4, 4]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(a: {dtype}[4, 32], b: {dtype}[32, 4], c: {dtype}[4, 4]):
            c[:, :] = allo.matmul(a, b)
    """
    c = np.zeros((4, 4), storage)
    run(tmp_path, source, a, b, c)
    expected = np.zeros((4, 4), storage)
    for k in range(32):
        term = a[:, k : k + 1] * b[k : k + 1, :]
        if dtype == "bfloat16":
            term = _bf16(term)
        expected = expected + term
        if dtype == "bfloat16":
            expected = _bf16(expected)
    assert np.array_equal(c, expected)


def _bf16(values):
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32)


def test_allo_matmul_of_int8_wraps_in_int8(tmp_path):
    # visit_library_op: the inputs' type; linalg.matmul's muli/addi in i8 wrap, then ExtSIOp.
    source = """
    @df.region()
    def top(A: int8[2, 2], B: int8[2, 2], C: int32[2, 2]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(a: int8[2, 2], b: int8[2, 2], c: int32[2, 2]):
            c[:, :] = allo.matmul(a, b)
    """
    a = np.array([[100, 100], [1, 2]], np.int8)
    b = np.array([[2, 0], [1, 1]], np.int8)
    c = np.zeros((2, 2), np.int32)
    run(tmp_path, source, a, b, c)
    assert c.tolist() == [[44, 100], [4, 2]]  # 300 wraps to 44 in int8


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("a: int8 = 5\nr[0] = a[9]", "the bit 9 of a i8 value"),
        ("a: int8 = 5\ni: uint8 = 200\nr[0] = a[i]", "the bit 200 of a i8 value"),
        ("a: int8 = 5\nr[0] = a[2:10]", r"the bit slice \[2:10\] of a i8 value"),
        ("a: int8 = 5\nlo: int32 = 4\nr[0] = a[lo:lo + 8]", r"the bit slice \[4:12\] of a i8 value"),
        ("a: int8 = 0\na[8] = 1\nr[0] = a", "the bit 8 of a i8 value"),
    ],
)
def test_a_bit_at_or_past_the_width_is_refused_by_name(tmp_path, body, what):
    # Allo's LowerBitOps pass (in the simulator's pipeline: lower_bit_ops) lowers GetIntBitOp to
    # ShRSIOp by the position cast to the value's width, GetIntSliceOp to ShLIOp/ShRUIOp by
    # width - 1 - hi and lo, SetIntBitOp to ShLIOp of 1: a position at or past the width is
    # poison. The old code read 0 for a[9] and bits past an int8 for a[2:10].
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match=f"{what} .*poison in LLVM"):
        _kernel(tmp_path, body)


@pytest.mark.parametrize("index", ["-1", "A[0]", "int(f)"])
def test_a_bit_index_that_builds_nothing_is_refused_by_name(tmp_path, index):
    # build_bit_operation builds an operation only for a Name, Constant or BinOp index (ast.Index
    # aside): for anything else it returns None and the build fails further on.
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match="build_bit_operation builds no operation"):
        _kernel(tmp_path, f"A: int32[2] = 1\nf: float32 = 1.0\na: int8 = 5\nr[0] = a[{index}]")


def test_an_in_range_bit_index_reads_and_sets_that_bit(tmp_path):
    body = "a: int16 = 0x1234\nb: int8 = 0\nb[7] = 1\nb[0:4] = 0x1F\nr[0] = a[4:8] + a[0:4]\nr[1] = b\nr[2] = a[12]"
    assert _kernel(tmp_path, body, n=3) == [7, -113, 1]  # 0x8F as an int8; bit 12 of 0x1234


_HELPERS = """
def add8(a: int8, b: int8) -> int8:
    return a + b

def mac(a: int8, b: int8) -> int16:
    c: int16 = a * b
    return c

def half(x: float32) -> int32:
    return x / 2
"""


@pytest.mark.parametrize(
    ("body", "expected", "rule"),
    [
        ("x: int8 = 100\ny: int8 = 100\nr[0] = add8(x, y)", [-56], "build_Return casts Int(9) 200 to int8"),
        (
            "x: int8 = 100\ny: int8 = 100\nr[0] = add8(x, y) % 3",
            [-2],
            "the call is int8 (its FunctionDef's dtype): remsi",
        ),
        ("x: int8 = -128\nr[0] = mac(x, x)", [16384], "mul_rule Int(16) inside the function"),
        ("f: float32 = 7.0\nr[0] = half(f)", [3], "float32 / int32 is float32 3.5, FPToSIOp at the return"),
    ],
)
def test_a_plain_function_computes_in_its_own_types(tmp_path, body, expected, rule):
    # A plain function called from a kernel is built as a function of its annotated types
    # (infer.py visit_Call types the call by the FunctionDef's return dtype). The old code ran it
    # as Python: add8(100, 100) was 200.
    assert _kernel(tmp_path, body, prelude=_HELPERS) == expected, rule


@pytest.mark.parametrize("body", ["r[0] = add8(100, 100)", "x: int32 = 300\nr[0] = add8(x, 1)"])
def test_a_plain_functions_argument_of_another_type_does_not_build(tmp_path, body):
    # build_Call passes a plain function's arguments uncast: an i32 (a literal is one) given to an
    # int8 parameter fails func.call's verifier.
    with pytest.raises(MLIRError, match="'func.call' op operand type mismatch: expected operand type 'i8'"):
        _kernel(tmp_path, body, prelude=_HELPERS)


def test_an_array_of_another_dtype_is_converted_as_allos_module_call_converts_it(tmp_path):
    # LLVMModule.__call__ (allo/backend/llvm.py): an array argument of another dtype is
    # arg.astype(target) going in and arg[:] = new_arg coming out, every array argument: the
    # caller's float64 input holds float32 values afterwards, read by the kernel or not, and an
    # int64 array for an int8 parameter holds numpy's int8 of each value. The old code left the
    # elements the kernel did not touch as they were.
    source = """
    @df.region()
    def top(A: float32[3], B: int8[2], C: float32[1]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(a: float32[3], b: int8[2], c: float32[1]):
            c[0] = a[0] * 2.0 + b[0]
    """
    a = np.array([0.1, 0.2, 1e300])
    b = np.array([300, 7], np.int64)
    c = np.zeros(1)
    run(tmp_path, source, a, b, c)
    assert a.tolist() == [float(f32(0.1)), float(f32(0.2)), float("inf")]
    assert b.tolist() == [44, 7]
    assert c.tolist() == [float(f32(f32(0.1) * f32(2.0)) + f32(44))]


def test_an_any_width_integer_argument_is_wrapped_in_the_callers_array(tmp_path):
    # LLVMModule.__call__: an Int(4) parameter's array goes through handle_overflow (each value
    # wrapped into 4 bits) and comes back through struct_array_to_int_array: the caller's array
    # holds the wrapped values afterwards.
    source = """
    @df.region()
    def top(A: Int(4)[3], B: int32[1]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(a: Int(4)[3], b: int32[1]):
            b[0] = a[0]
    """
    a = np.array([20, 9, -9], np.int32)
    b = np.zeros(1, np.int32)
    run(tmp_path, source, a, b)
    assert (a.tolist(), b.tolist()) == ([4, -7, 7], [4])


def test_allo_matmul_of_mixed_integer_types_computes_in_the_first_inputs_type(tmp_path):
    # visit_library_op types allo.matmul by its first input (int8); linalg.matmul casts the uint8
    # input to it (cast_signed: the same width, the bits kept) and wraps in i8. numpy promoted the
    # pair to int16: the old code stored 300, 101, 400, 200.
    source = """
    @df.region()
    def top(A: int8[2, 2], B: uint8[2, 2], C: int32[2, 2]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(a: int8[2, 2], b: uint8[2, 2], c: int32[2, 2]):
            c[:, :] = allo.matmul(a, b)
    """
    a = np.array([[1, 1], [2, 0]], np.int8)
    b = np.array([[200, 100], [100, 1]], np.uint8)
    c = np.zeros((2, 2), np.int32)
    run(tmp_path, source, a, b, c)
    assert c.tolist() == [[44, 101], [-112, -56]]
