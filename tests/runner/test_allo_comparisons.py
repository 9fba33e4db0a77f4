"""Comparisons as Allo a098603f builds them (issue 27, found by review): the executor computes
what Allo computes and raises the builds Allo refuses, each case naming the rule of Allo's source.

- `build_Compare` (allo/ir/builder.py) picks the predicate by the name of the MLIR type, and a
  signless `iN` starts with "i": an ordering of integers is signed (`slt`, `sgt`) even when
  `cmp_rule` gives an unsigned common type.
- A comparison is an `i1` (`arith.cmpi`/`cmpf`) that `visit_Compare` (allo/ir/infer.py) types by
  its operands' common type; `build_cast_op` casts it from that type: a widening from a signed
  type is `ExtSIOp`/`SIToFPOp` of the `i1` (true is -1), and where no cast is emitted the `i1`
  meets a store or an operation of the wider type, which MLIR's verifier refuses.
- `if c`, `while c`, `x if c else y` and `not c` take `c` as it is built: an `i1`, or the build fails.

Each design runs through the executor as a user's `df.build(top, target="simulator")`."""

import numpy as np
import pytest
from allo_lsp.protocol.kernel_model import VERIFIER
from allo_lsp.runner.reference.typed import MLIRError

from tests.runner.reference_harness import load, run, shim


def _design(body: str, out: str, n: int) -> str:
    lines = "\n".join(f"            {line}" for line in body.strip().splitlines())
    return f"""
    @df.region()
    def top(R: {out}[{n}]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: {out}[{n}]):
{lines}
    """


def _run(tmp_path, body: str, out: str = "int32", n: int = 1) -> list:
    result = np.zeros(n, np.dtype(out))
    run(tmp_path, _design(body, out, n), result)
    return result.tolist()


@pytest.mark.parametrize(
    ("body", "expected", "rule"),
    [
        ("x: uint8 = 200\ny: uint8 = 100\nr[0] = 1 if x > y else 2", [2], "cmp_rule UInt(8); sgt: 200 is -56"),
        ("x: uint32 = 3000000000\ny: uint32 = 5\nr[0] = 1 if x < y else 2", [1], "UInt(32); slt"),
        ("x: uint8 = 200\ny: uint8 = 100\nr[0] = 1 if x != y else 2", [1], "eq/ne are sign-blind"),
        ("x: uint8 = 200\nr[0] = 1 if x > 100 else 2", [1], "(UInt(8), Int(32)) is Int(32): exact"),
        ("x: int8 = -1\ny: uint8 = 255\nr[0] = 1 if x < y else 2", [1], "(Int(8), UInt(8)) is Int(9): exact"),
        ("x: uint8 = 200\ny: uint8 = 100\nr[0] = min(x, y)", [100], "min is MinUIOp: unsigned"),
        (
            "u: uint32 = 3000000000\nfor i in range(1):\n    r[0] = 1 if u > i else 2",
            [2],
            "(UInt(32), Index) is UInt(32): sgt on i32",
        ),
    ],
)
def test_an_integer_ordering_is_signed_in_the_common_type(tmp_path, body, expected, rule):
    assert _run(tmp_path, body) == expected, rule


@pytest.mark.parametrize(
    ("body", "out", "expected", "rule"),
    [
        ("a: int8 = 1\nb: int8 = 2\nr[0] = a < b", "int32", [-1], "Int(8) -> int32: ExtSIOp of the i1"),
        ("a: uint8 = 1\nb: uint8 = 2\nr[0] = a < b", "int32", [1], "UInt(8) -> int32: ExtUIOp of the i1"),
        ("a: int32 = 1\nb: int32 = 2\nx: int32 = 10\nr[0] = x + (a < b)", "int32", [9], "add Int(33): ExtSIOp"),
        ("a: int8 = 1\nb: int8 = 2\nr[0] = (a < b) + (b > a)", "int32", [-2], "add Int(9): each -1"),
        ("a: int8 = 1\nb: int8 = 2\nr[0] = int(a < b)", "int32", [-1], "int(): build_cast_op Int(8) -> Int(32)"),
        ("a: int32 = 1\nb: int32 = 2\nr[0] = float(a < b)", "float32", [-1.0], "float(): SIToFPOp of the i1"),
        ("a: int32 = 1\nb: int32 = 2\nr[0] = 1 if a < b and b > a else 0", "int32", [1], "an i1 as a condition"),
    ],
)
def test_a_comparison_widened_from_a_signed_type_is_minus_one(tmp_path, body, out, expected, rule):
    assert _run(tmp_path, body, out) == expected, rule


def _build_error(tmp_path, body: str) -> str:
    with shim():
        module, _ = load(tmp_path, _design(body, "int32", 1))
        with pytest.raises(MLIRError) as raised:
            module.df.build(module.top, target="simulator")
    return str(raised.value)


@pytest.mark.parametrize(
    ("body", "message", "rule"),
    [
        ("a: int32 = 1\nb: int32 = 2\nr[0] = a < b", VERIFIER["affine.store"], "Int(32) -> int32: no cast"),
        ("a: int32 = 1\nb: int32 = 2\nc = a < b", VERIFIER["affine.store"], "an untyped local of Int(32)"),
        ("a: int32 = 1\nb: int32 = 2\nf: bool = a < b", "'arith.trunci' op operand type 'i1'", "TruncIOp"),
        ("a: float32 = 1.0\nb: float32 = 2.0\nr[0] = a < b", "'arith.fptosi' op operand #0", "FPToSIOp"),
        ("a: int32 = 3\nif a:\n    r[0] = 1", "'scf.if' op operand #0 must be 1-bit", "scf.if of an i32"),
        ("a: int32 = 3\nr[0] = 1 if a else 0", "'arith.select' op operand #0 must be bool-like", "select"),
        ("a: int32 = 3\nif a > 0 and a:\n    r[0] = 1", "'arith.andi' op requires the same type", "andi"),
    ],
)
def test_a_comparison_or_condition_of_the_wrong_mlir_type_does_not_build(tmp_path, capsys, body, message, rule):
    assert message in _build_error(tmp_path, body), rule


def test_not_of_an_integer_does_not_build(tmp_path, capsys):
    # build_UnaryOp: "The operand of 'not' should be a boolean value" (a RuntimeError: exit 1).
    with shim():
        module, _ = load(tmp_path, _design("a: int32 = 0\nif not a:\n    r[0] = 1", "int32", 1))
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert "The operand of 'not' should be a boolean value" in capsys.readouterr().out


def test_float_inequality_is_ordered(tmp_path):
    # build_Compare's ATTR_MAP maps != of floats to cmpf predicate 6, `one` (ordered and unequal):
    # false when either side is NaN, where Python's != is true; == is `oeq`, false too.
    body = "z: float32 = 0.0\nn: float32 = z / z\nr[0] = 1 if n != n else 2\nr[1] = 1 if n == n else 2"
    assert _run(tmp_path, body, n=2) == [2, 2]
    assert _run(tmp_path, "a: float32 = 1.0\nb: float32 = 2.0\nr[0] = 1 if a != b else 2") == [1]


@pytest.mark.parametrize("value", ["z / z", "1.0 / z"])
def test_a_nan_or_infinity_into_an_integer_is_refused_not_blamed_on_the_user(tmp_path, value):
    # FPToSIOp of NaN or an infinity is poison in LLVM: no number is made up, and the kernel's
    # line is not blamed with Python's ValueError/OverflowError.
    from allo_lsp.runner.reference.transform import Unsupported

    for store in ("x: int32 = n\nr[0] = x", "r[0] = n", "r[0] = int(n)"):
        with pytest.raises(Unsupported, match="converted to an integer is poison"):
            _run(tmp_path, f"z: float32 = 0.0\nn: float32 = {value}\n{store}")
