"""The reference executor computes in Allo's types (issue 27, point 2): each operator and type
pair below gives the value Allo a098603f computes, the rule named (`allo/ir/typing_rule.py`,
`allo/ir/builder.py`, `allo/backend/simulator.py`); build errors are raised as Allo raises them.

Each design is run through the executor as a user's `df.build(top, target="simulator")`."""

import numpy as np
import pytest

from tests.runner.reference_harness import load, run, shim

_ALLO = {"int64": "Int(64)"}


def _scalar(tmp_path, decls: str, expr: str, out: str = "int32"):
    """`expr` computed in a kernel over `decls` (one `name: type = value` per line) and stored
    into an `out` array of one element: what a user's design would read back."""
    body = "\n".join(f"            {d}" for d in decls.splitlines() if d.strip())
    source = f"""
    @df.region()
    def top(R: {_ALLO.get(out, out)}[1]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: {_ALLO.get(out, out)}[1]):
{body}
            r[0] = {expr}
    """
    result = np.zeros(1, np.dtype(out))
    run(tmp_path, source, result)
    return result[0].item()


@pytest.mark.parametrize(
    ("decls", "expr", "expected", "rule"),
    [
        ("a: int32 = -4", "a % 3", -1, "remsi: C's remainder has the dividend's sign"),
        ("a: int32 = 7", "-a % 3", -1, "remsi"),
        ("a: int32 = -7", "a / 2", -3, "divsi truncates toward zero (int / int is not true division)"),
        ("a: int32 = 7", "a / 2", 3, "divsi"),
        ("a: int32 = -7", "a // 2", -4, "floordivsi on signed"),
        ("a: uint8 = 250\nb: uint8 = 7", "a % b", 5, "remui"),
        ("a: uint8 = 250\nb: int8 = 2", "a / b", -3, "div_rule: uint8 / int8 is Int(8): 250 reads as -6"),
        ("a: uint8 = 3\nb: uint8 = 5", "a - b", 510, "add_sub_rule: UInt(9), 3 - 5 is 510"),
        ("a: int8 = 100\nb: int8 = 100", "a + b", 200, "add_sub_rule: Int(9), no wrap in int8"),
        ("a: int8 = -15\nb: int8 = 1", "a * b", -15, "mul_rule: Int(16)"),
        ("a: int8 = 64", "a << 2", 0, "shift_rule: the left operand's type, int8: 256 wraps to 0"),
        ("a: int8 = -8", "a >> 1", -4, "shrsi on signed"),
        ("a: uint8 = 200", "a >> 1", 100, "shrui on unsigned"),
        ("a: int8 = -1\nb: int16 = 0", "(a << 1) + b", 254, "build_cast_op: a shift left widens with ExtUI"),
        ("a: int8 = -1\nb: uint16 = 40000", "a & b", -25536, "and_or_rule: Int(16); uint16 40000 reads as -25536"),
        ("a: uint8 = 200", "-a", 56, "build_UnaryOp: -uint8 is Int(8): 0 - 200 wraps to 56"),
        ("a: int8 = 5", "~a", 5, "build_UnaryOp has no Invert case: ~x is x"),
        ("x: int32 = 7", "int(float(x) / 2.0)", 3, "float() is SIToFP to float32, int() is FPToSI"),
        ("f: float32 = -2.7", "int(f)", -2, "FPToSI truncates toward zero"),
        (
            "a: int32 = 16777217",
            "1 if float(a) == 16777216.0 else 0",
            1,
            "cmp_rule: float32 common type, SIToFP rounds",
        ),
        ("a: uint8 = 200\nb: int8 = -1", "max(a, b)", 200, "select_rule: Int(9)"),
        ("a: int16 = 0x7F01", "a[0:8] + a[8:16]", 128, "a bit slice is UInt(8), zero-extended"),
    ],
)
def test_integer_operators_compute_in_allos_types(tmp_path, decls, expected, expr, rule):
    assert _scalar(tmp_path, decls, expr) == expected, rule


def test_untyped_locals_take_the_type_of_their_first_assignment(tmp_path):
    # `x = a[i]` with int8 `a` makes an int8 local: `x = x + 100` wraps (infer.py: an untyped
    # local's later assignments are cast to its type). `acc = 0` is int32: `acc + v * 0.5`
    # (float32) is truncated (FPToSI) at each step: 1 + 0.5 -> 1, ..., never more than 1.
    source = """
    @df.region()
    def top(A: int8[4], R: int32[2]):
        @df.kernel(mapping=[1], args=[A, R])
        def k(a: int8[4], r: int32[2]):
            x = a[0]
            x = x + 100
            r[0] = x
            acc = 0
            for i in range(4):
                v: int32 = 1
                acc = acc + v * 0.5
            r[1] = acc
    """
    R = np.zeros(2, np.int32)
    run(tmp_path, source, np.array([100, 0, 0, 0], np.int8), R)
    assert R.tolist() == [-56, 0]  # 200 wraps in int8; 0 + 0.5 truncates to 0 at every step


def test_float32_arithmetic_rounds_each_operation(tmp_path):
    # float32 per operation (numpy float32): 16777216 + 1 + 1 stays 16777216 in float32; in
    # exact (or float64) arithmetic it is 16777218. A float literal is a float32.
    value = _scalar(tmp_path, "f: float32 = 16777216.0", "f + 1.0 + 1.0", out="float32")
    assert value == 16777216.0
    third = _scalar(tmp_path, "f: float32 = 1.0", "(f / 3.0) * 3.0 - 1.0", out="float32")
    assert third == float(np.float32(np.float32(np.float32(1.0) / np.float32(3.0)) * np.float32(3.0)) - 1)


def test_bfloat16_rounds_after_every_operation(tmp_path):
    # 1 + 2**-8 is no bfloat16 (8 bits of mantissa): the sum rounds to 1 before the next one,
    # so adding 2**-8 twice gives 1, not 1 + 2**-7.
    value = _scalar(tmp_path, "b: bfloat16 = 1.0\nd: bfloat16 = 0.00390625", "b + d + d", out="float32")
    assert value == 1.0


def test_int_float_mix_is_float32_and_int_literal_is_int32(tmp_path):
    # int32 + float32 is float32 (SIToFP): 16777217 becomes 16777216.0 before the addition.
    assert _scalar(tmp_path, "a: int32 = 16777217\nf: float32 = 0.0", "a + f", out="float32") == 16777216.0
    # An int literal is int32: 2147483647 + 1 is Int(33), exact, then truncated by the int64 store.
    assert _scalar(tmp_path, "a: int32 = 2147483647", "a + 1", out="int64") == 2147483648


def test_a_narrow_signed_put_into_a_wider_stream_arrives_zero_extended(tmp_path):
    # int8 * int8 is Int(16); the simulator widens a put's value with ExtUIOp (simulator.py,
    # _process_function_streams): -15 as i16 into Stream[int32] arrives as 65521.
    source = """
    @df.region()
    def top(A: int8[2], R: int32[1]):
        s: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int8[2]):
            s.put(a[0] * a[1])

        @df.kernel(mapping=[1], args=[R])
        def consumer(r: int32[1]):
            r[0] = s.get()
    """
    R = np.zeros(1, np.int32)
    run(tmp_path, source, np.array([-15, 1], np.int8), R)
    assert R.tolist() == [65521]


def test_a_shift_past_the_width_is_refused_by_name(tmp_path):
    # `1 << 35` is computed in int32 (shift_rule); LLVM's shl by >= the width is poison.
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match="shift by 35 of a i32 value.*poison"):
        _scalar(tmp_path, "n: int32 = 35", "1 << n", out="int64")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("r[0] = allo.exp(a[0])", "allo.exp (line"),
        ("x: Fixed(8, 4) = a[0]\n            r[0] = x", "no fixed-point lowering"),
    ],
)
def test_math_and_fixed_point_do_not_build_for_the_simulator(tmp_path, capsys, body, message):
    # LLVMOMPModule.__init__'s pass pipeline has no math or fixed-point lowering.
    source = f"""
    @df.region()
    def top(A: float32[1], R: float32[1]):
        @df.kernel(mapping=[1], args=[A, R])
        def k(a: float32[1], r: float32[1]):
            {body}
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
        assert exited.value.code == 1
        assert message in capsys.readouterr().out
        module.df.build(module.top, target="vitis_hls")  # builds there


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("r[0] = abs(a[0])", "Unsupported function call abs"),
        ("b: uint8 = 7\n            c: uint8 = 2\n            r[0] = b // c", "Allo cannot build `//`"),
        ("for i in range(2):\n                t: int32 = i\n            r[0] = t", "Unsupported Name `t`"),
        ("f: float32 = 1.0\n            r[0] = f << 1", "Typing rule is not defined"),
    ],
)
def test_build_errors_of_the_typing_are_raised_before_anything_runs(tmp_path, capsys, body, message):
    source = f"""
    @df.region()
    def top(A: int32[1], R: int32[1]):
        @df.kernel(mapping=[1], args=[A, R])
        def k(a: int32[1], r: int32[1]):
            {body}
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
        assert exited.value.code == 1
        assert message in capsys.readouterr().out


def test_a_stream_arrays_index_is_evaluated_in_python_as_allo_resolves_it(tmp_path):
    # Allo resolves a stream array's index at compile time (ASTResolver, Python's %): with
    # pid 0, `(i - 1) % 2` is 1, not remsi's -1 (Allo's test_cannon.py relies on it).
    source = """
    @df.region()
    def top(R: int32[2]):
        fifo: Stream[int32, 2][2]

        @df.kernel(mapping=[2])
        def producer():
            i = df.get_pid()
            fifo[(i - 1) % 2].put(i + 10)

        @df.kernel(mapping=[2], args=[R])
        def consumer(r: int32[2]):
            j = df.get_pid()
            with allo.meta_if((j - 1) % 2 == 1):
                r[0] = fifo[j].get()
            with allo.meta_else():
                r[1] = fifo[j].get()
    """
    R = np.zeros(2, np.int32)
    run(tmp_path, source, R)
    assert R.tolist() == [11, 10]


def test_a_fixed_point_parameter_does_not_build_for_the_simulator(tmp_path, capsys):
    source = """
    @df.region()
    def top(A: Fixed(8, 4)[1], R: float32[1]):
        @df.kernel(mapping=[1], args=[A, R])
        def k(a: Fixed(8, 4)[1], r: float32[1]):
            r[0] = 1.0
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit):
            module.df.build(module.top, target="simulator")
        assert "'a' is fixed(8, 4) and cannot be built" in capsys.readouterr().out


def _statements(tmp_path, body: str, out: str = "int32", prelude: str = "") -> int:
    """`body` (statements ending in `r[0] = ...`) in a kernel: the element a user reads back."""
    lines = "\n".join(f"            {line}" for line in body.splitlines() if line.strip())
    source = f"""
    {prelude}
    @df.region()
    def top(R: {_ALLO.get(out, out)}[1]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: {_ALLO.get(out, out)}[1]):
{lines}
    """
    result = np.zeros(1, np.dtype(out))
    run(tmp_path, source, result)
    return result[0].item()


@pytest.mark.parametrize(
    ("body", "expected", "rule"),
    [
        ("x: uint8 = 200\nx //= 2\nr[0] = x", 228, "visit_AugAssign: div_rule (UInt(8), Int(32)) is Int(8): -56 // 2"),
        ("x: int8 = 7\nx %= -3\nr[0] = x", 1, "visit_AugAssign: mod_rule Int(32), remsi: 7 % -3 is 1 (Python's: -2)"),
        ("y: int16 = -7\ny %= 3\nr[0] = y", -1, "remsi: the dividend's sign (Python's: 2)"),
        ("x: int8 = -7\nx /= 2\nr[0] = x", -3, "div_rule Int(8), divsi truncates (Python's -7 / 2: -3.5)"),
        ("x: uint8 = 200\nx /= 2\nr[0] = x", 228, "div_rule (UInt(8), Int(32)) is Int(8): divsi -56 / 2 = -28"),
        ("x: int8 = 50\nx *= 3\nr[0] = x", -106, "mul_rule Int(40), cast back to int8"),
    ],
)
def test_an_augmented_assignment_computes_in_its_operations_type(tmp_path, body, expected, rule):
    assert _statements(tmp_path, body) == expected, rule


def test_min_of_two_loop_indices_does_not_build(tmp_path, capsys):
    # select_rule (Index, Index) is Index; build_Call's min/max has MinSI/MinUI/MinimumF only, so
    # `opcls` is never bound: an UnboundLocalError out of the builder, df.build exits 1.
    source = """
    @df.region()
    def top(R: int32[4]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: int32[4]):
            for i in range(2):
                for j in range(2):
                    r[i * 2 + j] = min(i, j)
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert "cannot access local variable 'opcls'" in capsys.readouterr().out
    assert _statements(tmp_path, "for i in range(2):\n    r[0] = min(i, 1)") == 1  # Int(33): MinSIOp


def test_a_power_does_not_build_for_the_simulator(tmp_path, capsys):
    # pow_rule is a float; build_general_binop lowers `**` to math.powf, which the simulator's
    # pipeline (LLVMOMPModule) does not lower.
    source = """
    @df.region()
    def top(R: float32[1]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: float32[1]):
            a: float32 = 3.0
            r[0] = a ** 2
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit):
            module.df.build(module.top, target="simulator")
        assert "math.powf" in capsys.readouterr().out
        module.df.build(module.top, target="vitis_hls")  # builds there


@pytest.mark.parametrize(
    ("body", "out", "expected", "rule"),
    [
        (
            "x: Int(64) = 3000000000\nr[0] = x",
            "int64",
            -1294967296,
            "visit_Constant int32; ExtSIOp of the i32 constant",
        ),
        (
            "a: Int(64) = 1\nr[0] = a + 3000000000",
            "int64",
            -1294967295,
            "add Int(65): the literal's 32 bits, sign-extended",
        ),
        ("f: float32 = 3000000000\nr[0] = f", "float32", -1294967296.0, "SIToFPOp of the i32 constant"),
        ("c: uint32 = 0xFFFFFFFF\nr[0] = c ^ 0xEDB88320", "int64", 0x12477CDF, "and_or_rule Int(32): in range"),
        ("c: uint32 = 0xFFFFFFFF\nr[0] = 1 if c == 0xFFFFFFFF else 0", "int32", 0, "cmp Int(33): 4294967295 vs -1"),
    ],
)
def test_an_int_literal_keeps_its_low_32_bits(tmp_path, body, out, expected, rule):
    # MockConstant.result builds an int literal as IntegerAttr.get(i32, value) (allo/ir/utils.py):
    # the APInt keeps the low 32 bits of a literal past int32's range.
    assert _statements(tmp_path, body, out) == expected, rule


@pytest.mark.parametrize(
    ("body", "expected", "rule"),
    [
        ("x: int32 = 2\nf: UInt(1) = x\nr[0] = f", 0, "UInt(1) from Int(32): TruncIOp keeps bit 0"),
        ("f: UInt(1) = 3\nr[0] = f", 1, "TruncIOp: 3 keeps 1"),
        ("f: UInt(1) = 0.5\nr[0] = f", 0, "FPToUIOp toward zero"),
        ("b: UInt(1)[2] = 0\nb[0] = 6\nb[1] = 7\nr[0] = b[0] + b[1]", 1, "an element of a bool array: its low bit"),
    ],
)
def test_a_bool_stores_the_low_bit(tmp_path, body, expected, rule):
    # allo.ir.types: `bool = UInt(1)`; build_cast_op truncates a wider integer to it.
    bool_body = body.replace("UInt(1)", "bool")
    assert _statements(tmp_path, bool_body, prelude="from allo.ir.types import bool") == expected, rule


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("x: int1 = 1\nf: float32 = x\nr[0] = f", -1.0),
        ("x: int1 = 1\nr[0] = x", -1.0),
        ("x: int1 = 1\nr[0] = x + 0.5", -0.5),
        ("x: int1 = 1\nr[0] = float(x)", -1.0),
        ("x: UInt(1) = 1\nr[0] = x", 1.0),
    ],
)
def test_an_int1_becomes_a_float_signed(tmp_path, body, expected):
    # build_cast_op: (Int, Float) is SIToFPOp, which reads the one bit signed: Int(1) 1 is -1.0;
    # (UInt, Float) is UIToFPOp: 1.0. (Widened to an integer, a 1-bit value zero-extends: 1.)
    assert _statements(tmp_path, body, out="float32") == expected


@pytest.mark.parametrize(
    ("body", "into"),
    [
        ("f: float32 = 3e10\nx: int32 = f\nr[0] = x", "i32"),
        ("f: float32 = 3e10\nr[0] = f", "i32"),
        ("f: float32 = 1e20\nr[0] = int(f)", "i32"),
        ("f: float32 = -3.0\nx: uint8 = f\nr[0] = x", "ui8"),
        ("f: float32 = 300.0\nx: uint8 = f\nr[0] = x", "ui8"),
        ("f: float32 = 2.0\nb: bool = f\nr[0] = b", "ui1"),
        ("f: float32 = 2147483648.0\nr[0] = int(f)", "i32"),
    ],
)
def test_a_float_out_of_the_integers_range_is_refused_by_name(tmp_path, body, into):
    # build_cast_op: (Float, Int) is FPToSIOp, (Float, UInt) FPToUIOp; LLVM's fptosi/fptoui of a
    # value whose truncation the integer type does not hold is poison. The old code wrapped it
    # (3e10 -> -64770048, -3.0 -> 253, 300.0 -> 44, int(1e20) -> 0).
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match=f"converted to the integer type {into} is poison"):
        _statements(tmp_path, body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("f: float32 = -0.5\nx: uint8 = f\nr[0] = x", 0),  # truncated to 0 first: in range
        ("f: float32 = 255.9\nx: uint8 = f\nr[0] = x", 255),
        ("f: float32 = -2147483648.0\nr[0] = int(f)", -2147483648),
        ("f: float32 = -1.0\nx: int1 = f\nr[0] = x", 1),  # FPToSIOp to i1: -1 is all ones, held as 1
    ],
)
def test_a_float_inside_the_integers_range_converts_toward_zero(tmp_path, body, expected):
    assert _statements(tmp_path, body) == expected, "FPToSIOp/FPToUIOp truncate toward zero"


@pytest.mark.parametrize(
    ("body", "out", "expected"),
    [
        ("x = 5000000000\nr[0] = x", "int64", 705032704),
        ("x = 5000000000\ny: Int(64) = x\nr[0] = y + 1", "int64", 705032705),
        ("x = 3000000000\nr[0] = x", "int64", -1294967296),
        ("x = -5000000000\nr[0] = x", "int64", -705032704),
    ],
)
def test_an_untyped_local_of_a_wide_literal_is_an_int32_of_its_low_bits(tmp_path, body, out, expected):
    # infer.py visit_Constant types the literal int32 and visit_Assign gives the new local that
    # type; build_assign_stmt stores MockConstant's IntegerAttr.get(i32, value), whose APInt keeps
    # the low 32 bits. The old code kept 5000000000 exactly.
    assert _statements(tmp_path, body, out) == expected


@pytest.mark.parametrize(
    ("decls", "expr", "what"),
    [
        ("a: int32 = 5\nb: int32 = 0", "a / b", "a division by zero of i32"),
        ("a: int32 = 5\nb: int32 = 0", "a % b", "a remainder by zero of i32"),
        ("a: int32 = 5\nb: int32 = 0", "a // b", "a division by zero of i32"),
        ("a: uint8 = 5\nb: uint8 = 0", "a / b", "a division by zero of ui8"),
        ("a: uint8 = 5\nb: uint8 = 0", "a % b", "a remainder by zero of ui8"),
        ("a: int32 = -2147483648\nb: int32 = -1", "a / b", "a division of -2147483648 by -1 of i32"),
        ("a: int32 = -2147483648\nb: int32 = -1", "a % b", "a remainder of -2147483648 by -1 of i32"),
        ("a: int8 = -128\nb: int8 = -1", "a / b", "a division of -128 by -1 of i8"),
        ("a: int8 = -128\nb: int8 = -1", "a // b", "a division of -128 by -1 of i8"),
    ],
)
def test_an_undefined_integer_division_is_refused_by_name(tmp_path, decls, expr, what):
    # build_general_binop: DivSIOp/DivUIOp/RemSIOp/RemUIOp/FloorDivSIOp in the result type;
    # LLVM's sdiv/udiv/srem/urem by zero and a signed MIN / -1 are undefined behaviour (x86's idiv
    # traps). The old code ended in Python's ZeroDivisionError at the user's line, and wrapped
    # MIN / -1 to MIN (MIN % -1 to 0).
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match=f"{what} values .* undefined behaviour in LLVM"):
        _scalar(tmp_path, decls, expr)


@pytest.mark.parametrize(
    ("decls", "expr", "expected", "rule"),
    [
        ("a: int8 = 1\nn: int32 = 256", "a << n", 1, "build_BinOp casts the amount to Int(8): TruncIOp 256 -> 0"),
        ("a: int8 = -128", "a >> 7", -1, "ShRSIOp on a signed i8"),
        ("a: uint8 = 128", "a >> 7", 1, "ShRUIOp on an unsigned i8"),
        ("a: uint32 = 4000000000", "a >> 1", 2000000000, "ShRUIOp keeps the top bit clear"),
        ("a: int16 = -300", "a >> 4", -19, "ShRSIOp rounds toward minus infinity"),
        ("a: int8 = 1", "a << 7", 128, "ShLIOp widened with ExtUI into int32"),
        ("a: int8 = 1\nb: int8 = 0", "(a << 7) + b", 128, "ExtUI of the shift into Int(9)"),
    ],
)
def test_an_in_range_shift_computes_in_the_left_operands_type(tmp_path, decls, expr, expected, rule):
    assert _scalar(tmp_path, decls, expr, out="int64") == expected, rule


@pytest.mark.parametrize(
    ("decls", "expr", "amount"),
    [
        ("a: int8 = 1\nn: int32 = -1", "a << n", "-1 of a i8"),
        ("a: int8 = 1\nn: int32 = 8", "a >> n", "8 of a i8"),
        ("a: uint8 = 1\nn: int32 = 9", "a >> n", "9 of a ui8"),
        ("a: int32 = 1\nn: int32 = 32", "a << n", "32 of a i32"),
    ],
)
def test_a_shift_by_an_amount_outside_the_width_is_refused_by_name(tmp_path, decls, expr, amount):
    # shl/ashr/lshr by an amount >= the width (unsigned: -1 is 255 in i8) is poison in LLVM.
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match=f"a shift by {amount} value .*poison"):
        _scalar(tmp_path, decls, expr)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("z: float32 = 0.0\nn: float32 = z / z\nr[0] = min(1.0, n)", "nan"),
        ("z: float32 = 0.0\nn: float32 = z / z\nr[0] = max(1.0, n)", "nan"),
        ("z: float32 = 0.0\nm: float32 = -z\nr[0] = 1.0 / min(z, m)", float("-inf")),
        ("z: float32 = 0.0\nm: float32 = -z\nr[0] = 1.0 / max(m, z)", float("inf")),
        ("a: int32 = 3\nf: float32 = 2.5\nr[0] = min(a, f)", 2.5),
    ],
)
def test_min_and_max_of_floats_are_minimumf_and_maximumf(tmp_path, body, expected):
    # build_Call: a float min/max is arith.minimumf/maximumf (LLVM's llvm.minimum/maximum): a NaN
    # operand gives NaN and -0.0 < 0.0. The old code used Python's min, which keeps its first
    # argument when the comparison is false (min(1.0, nan) was 1.0, min(0.0, -0.0) was 0.0).
    value = _statements(tmp_path, body, out="float32")
    assert np.isnan(value) if expected == "nan" else value == expected, body


def test_a_range_with_a_step_of_zero_or_less_does_not_build(tmp_path, capsys):
    # build_single_for: "Step in for loop range should be positive" (an affine.for takes only a
    # positive step). The old code ran the loop downwards.
    source = """
    @df.region()
    def top(R: int32[1]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: int32[1]):
            for i in range(5, 0, -1):
                r[0] = r[0] + i
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert "Step in for loop range should be positive, got: -1" in capsys.readouterr().out


@pytest.mark.parametrize(
    "body", ["x = 100000000000000000000\nr[0] = x", "a: Int(64) = 1\nr[0] = a + 9223372036854775808"]
)
def test_an_int_literal_past_int64_is_refused_by_name(tmp_path, body):
    # MockConstant.result: IntegerAttr.get(i32, value) takes an int64_t, which the bindings refuse
    # for a wider Python int: Allo's build fails. The old code kept its low 32 bits.
    from allo_lsp.runner.reference.transform import Unsupported

    with pytest.raises(Unsupported, match="does not fit the int64"):
        _statements(tmp_path, body, "int64")


@pytest.mark.parametrize("use", ["r[0] = float(d)", "f: float32 = d\nr[0] = f", "r[0] = d", "r[0] = d + 0.5"])
def test_a_wide_integer_becomes_a_float32_rounded_once(tmp_path, use):
    # SIToFPOp of an i64 is one rounding to nearest even (x86's cvtsi2ss): 2**60 + 2**36 + 1 is
    # above the halfway point and rounds up to 2**60 + 2**37. numpy's float32 of a Python int goes
    # through a double (2**60 + 2**36, then a tie to even: 2**60): the old code gave 2**60.
    body = f"a: Int(64) = 1\nb: Int(64) = a << 60\nc: Int(64) = a << 36\nd: Int(64) = b + c + 1\n{use}"
    assert _statements(tmp_path, body, out="float32") == 2.0**60 + 2**37
