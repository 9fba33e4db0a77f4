"""Arithmetic on whole arrays, with the value Allo a098603f computes for each design (issue 27):
an operator of arrays (`a * b`) is cast to its typing rule's type first (`build_BinOp`) and built as
a linalg op of that type (`build_general_binop`); `allo.add`/`sub`/`mul`/`div` are linalg ops of
their first argument's type with no cast (`visit_library_op`, `build_library_op`), and MLIR's
builder refuses inputs of another type. A loop whose step is known only when it runs is an
`scf.for`, which never ends from a step of 0 or less. NumPy would give other numbers for each."""

import numpy as np
import pytest
from allo_lsp.runner.reference.syntax import Unsupported

from tests.runner.reference_harness import run

f32 = np.float32


def _design(expr: str, at: str, bt: str, out: str, n: int = 4) -> str:
    return f"""
@df.region()
def top(A: {at}[{n}], B: {bt}[{n}], C: {out}[{n}]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def k(a: {at}[{n}], b: {bt}[{n}], c: {out}[{n}]):
        c[:] = {expr}
"""


def _run(tmp_path, expr, at, a, bt, b, out):
    a, b = (
        np.array(a, np.dtype(at) if at != "bfloat16" else f32),
        np.array(b, np.dtype(bt) if bt != "bfloat16" else f32),
    )
    c = np.zeros(len(a), np.dtype(out))
    run(tmp_path, _design(expr, at, bt, out, len(a)), a, b, c)
    return c.tolist()


@pytest.mark.parametrize(
    ("expr", "at", "a", "bt", "b", "out", "expected", "rule"),
    [
        (
            "a * b",
            "int8",
            [100, 100, -100, 1],
            "int8",
            [100, 27, -100, 1],
            "int32",
            [10000, 2700, 10000, 1],
            "mul_rule (Int(8), Int(8)) is Int(16): both cast to i16, linalg.mul in i16 (NumPy: int8, wrapped)",
        ),
        (
            "a - b",
            "uint8",
            [3, 200, 0, 255],
            "uint8",
            [5, 100, 1, 0],
            "int32",
            [510, 100, 511, 255],
            "add_sub_rule (UInt(8), UInt(8)) is UInt(9): 3 - 5 wraps to 510, zero-extended into int32",
        ),
        (
            "a / b",
            "uint8",
            [200, 7, 255, 9],
            "uint8",
            [2, 2, 255, 3],
            "uint8",
            [228, 3, 1, 3],
            "linalg's div of integers is divsi: 200 (i8 -56) / 2 is -28, stored as 228",
        ),
        (
            "a + 1.5",
            "int32",
            [1, -3, 16777217, 0],
            "int32",
            [0, 0, 0, 0],
            "float32",
            [2.5, -1.5, 16777216.0 + 2.0, 1.5],
            "add_sub_rule (Int(32), Float(32)) is float32: SIToFP rounds 16777217 to 16777216, then + 1.5",
        ),
        (
            "allo.add(a, b)",
            "int8",
            [100, 100, -100, 1],
            "int8",
            [100, 27, -100, 1],
            "int32",
            [-56, 127, 56, 2],
            "linalg.add in the first argument's type, int8: wraps",
        ),
        (
            "allo.add(a, b)",
            "bfloat16",
            [1.0, 256.0, 3.0, 1.0],
            "bfloat16",
            [1 / 256, 1.0, 1 / 128, 3 / 256],
            "float32",
            [1.0, 256.0, 3.0, 1.015625],
            "linalg.add in bf16: each sum rounded to bfloat16 (to nearest even) before the store",
        ),
        (
            "allo.mul(a, 3)",
            "int8",
            [50, -50, 1, 43],
            "int8",
            [0, 0, 0, 0],
            "int32",
            [-106, 106, 3, -127],
            "the scalar filled in int8 (linalg.fill), linalg.mul in int8: 150 wraps to -106",
        ),
        (
            "allo.div(a, b)",
            "int32",
            [-7, 7, -8, 9],
            "int32",
            [2, -2, 3, 3],
            "int32",
            [-3, -3, -2, 3],
            "linalg.div of int32 is divsi: truncating (NumPy's divide: a float quotient)",
        ),
    ],
)
def test_an_array_operation_computes_in_allos_types(tmp_path, expr, at, a, bt, b, out, expected, rule):
    assert _run(tmp_path, expr, at, a, bt, b, out) == expected, rule


def test_an_array_division_by_zero_is_refused_by_name(tmp_path):
    with pytest.raises(Unsupported, match="division"):
        _run(tmp_path, "a / b", "int32", [1, 2, 3, 4], "int32", [1, 0, 1, 1], "int32")


def test_a_broadcast_row_is_cast_as_the_operation_types_it(tmp_path):
    source = """
@df.region()
def top(A: int8[2, 3], B: int8[3], C: int32[2, 3]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def k(a: int8[2, 3], b: int8[3], c: int32[2, 3]):
        c[:, :] = a * b
"""
    a = np.array([[100, -100, 2], [127, 1, -128]], np.int8)
    b = np.array([100, 100, -128], np.int8)
    c = np.zeros((2, 3), np.int32)
    run(tmp_path, source, a, b, c)
    assert c.tolist() == [[10000, -10000, -256], [12700, 100, 16384]], "Int(16) products, broadcast from the right"


_LOOP = """
@df.region()
def top(A: int32[4], S: int32[3]):
    @df.kernel(mapping=[1], args=[A, S])
    def k(a: int32[4], s: int32[3]):
        lo: int32 = s[0]
        hi: int32 = s[1]
        st: int32 = s[2]
        for i in range(lo, hi, st):
            a[i] = a[i] + 1
"""


@pytest.mark.parametrize("bounds", [[0, 4, -1], [0, 4, 0]])
def test_a_loop_that_runs_with_a_step_of_zero_or_less_is_refused_by_name(tmp_path, bounds):
    with pytest.raises(Unsupported, match=f"step of {bounds[2]}"):
        run(tmp_path, _LOOP, np.zeros(4, np.int32), np.array(bounds, np.int32))


@pytest.mark.parametrize(
    ("bounds", "expected"), [([3, 0, -1], [0, 0, 0, 0]), ([3, 3, 0], [0, 0, 0, 0]), ([1, 4, 2], [0, 1, 0, 1])]
)
def test_a_loop_with_a_run_time_step_runs_as_scf_for(tmp_path, bounds, expected):
    a = np.zeros(4, np.int32)
    run(tmp_path, _LOOP, a, np.array(bounds, np.int32))
    assert a.tolist() == expected, "scf.for steps from the lower bound while below the upper one"


def test_a_slice_is_an_array_of_its_base_type_in_an_operation(tmp_path):
    """`a[0:2] * a[2:4]` of int8 is Int(16), as of whole arrays (`visit_Subscript`: the slice's
    shape, the base's type)."""
    result = _run(tmp_path, "a * a", "int8", [100, 100, -2, 100], "int8", [0, 0, 0, 0], "int32")
    assert result == [10000, 10000, 4, 10000]
    source = _design("a", "int8", "int8", "int32").replace("c[:] = a", "c[0:2] = a[0:2] * a[2:4]")
    c = np.zeros(4, np.int32)
    run(tmp_path, source, np.array([100, 100, -2, 100], np.int8), np.zeros(4, np.int8), c)
    assert c.tolist() == [-200, 10000, 0, 0]


@pytest.mark.parametrize(("elem", "message"), [("int8", "'arith.subi'"), ("float32", "'arith.negf' op operand #0")])
def test_a_negated_array_is_refused_by_the_verifier_and_reported(tmp_path, elem, message):
    """`build_UnaryOp` builds `-a` as the scalar op on the array's memref."""
    from allo_lsp.analysis import analyze
    from allo_lsp.runner.reference.typed import MLIRError

    from tests.runner.reference_harness import HEADER

    source = _design("-a", elem, elem, elem)
    with pytest.raises(MLIRError, match=message):
        run(tmp_path, source, np.ones(4, np.dtype(elem)), np.ones(4, np.dtype(elem)), np.zeros(4, np.dtype(elem)))
    found = [p for p in analyze(HEADER + source).problems if p.code == "ADF082"]
    assert [p.range.start.line for p in found] == [source.count("\n", 0, source.index("-a")) + HEADER.count("\n")]


def test_a_matmul_is_an_array_of_its_first_inputs_type_in_an_operation(tmp_path):
    """`allo.matmul(a, b)` of int8 is an int8 (2, 2) array (`visit_library_op`), wrapped; `+ d` of
    int8 is then Int(9): 100 + 100 is 200, not NumPy's int8 -56."""
    source = """
@df.region()
def top(A: int8[2, 3], B: int8[3, 2], D: int8[2, 2], C: int32[2, 2]):
    @df.kernel(mapping=[1], args=[A, B, D, C])
    def k(a: int8[2, 3], b: int8[3, 2], d: int8[2, 2], c: int32[2, 2]):
        c[:, :] = allo.matmul(a, b) + d
"""
    a = np.array([[50, 0, 0], [100, 1, 2]], np.int8)
    b = np.array([[2, 0], [1, 1], [1, 1]], np.int8)
    d = np.array([[100, 0], [100, 0]], np.int8)
    c = np.zeros((2, 2), np.int32)
    run(tmp_path, source, a, b, d, c)
    assert c.tolist() == [[200, 0], [-53 + 100, 3]]
