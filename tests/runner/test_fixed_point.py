"""A float converted to fixed point, as Allo a098603f lowers `FloatToFixedOp` for its LLVM
build (`lowerFloatToFixed` in mlir/lib/Conversion/FixedPointToInteger.cpp): the float times
2**frac (`mulf`), then `FPToSIOp`/`FPToUIOp` into an integer of the fixed type's width, so toward
zero, and poison where it does not fit. A fixed value to another fixed type or to an integer is
shifted right (floor). Run through `allo.customize(f).build()` (the simulator builds no fixed
point)."""

import numpy as np
import pytest
from allo_lsp.runner.reference.syntax import Unsupported

from tests.runner.reference_harness import load, shim

_KERNEL = """
from allo.ir.types import UFixed

def kernel(A: float32[2]) -> float32[2]:
    r: float32[2] = 0.0
    x: TYPE = EXPR
    r[0] = x
    y: Fixed(6, 2) = x
    r[1] = y
    return r
"""


def _run(tmp_path, ty: str, expr: str, a: list) -> list:
    with shim():
        module, _ = load(tmp_path, _KERNEL.replace("TYPE", ty).replace("EXPR", expr))
        return module.allo.customize(module.kernel).build()(np.array(a, np.float32)).tolist()


@pytest.mark.parametrize(
    ("ty", "expr", "a", "expected", "rule"),
    [
        ("Fixed(16, 8)", "A[0]", [-1.03, 0], [-263 / 256, -1.25], "FPToSI: -263.68 -> -263; then ShRSI by 6: floor"),
        ("Fixed(16, 8)", "A[0]", [1.3, 0], [332 / 256, 1.25], "332.8 -> 332; 332 >> 6 is 5: 1.25"),
        ("UFixed(8, 4)", "A[0] * 2.0", [3.99, 0], [127 / 16, 7.75], "mulf in float32, FPToUI: 127.68 -> 127"),
        ("Fixed(8, 4)", "A[0] + A[1]", [-2.0, -0.03], [-32 / 16, -2.0], "-32.48 -> -32 (floor would be -33)"),
    ],
)
def test_a_float_into_fixed_point_is_truncated_toward_zero(tmp_path, ty, expr, a, expected, rule):
    assert _run(tmp_path, ty, expr, a) == expected, rule


@pytest.mark.parametrize(("ty", "value"), [("Fixed(8, 4)", 8.0), ("UFixed(8, 4)", -0.5)])
def test_a_float_fixed_point_does_not_hold_is_refused(tmp_path, ty, value):
    with pytest.raises(Unsupported, match="poison"):
        _run(tmp_path, ty, "A[0]", [value, 0])


def test_a_callers_floats_into_a_fixed_point_parameter_are_truncated_toward_zero(tmp_path):
    """`LLVMModule.__call__` scales the caller's array in float64 and `handle_overflow` takes
    `np.fix` (toward zero), then wraps into the width."""
    source = """
    def kernel(A: Fixed(8, 4)[3], s: Fixed(8, 4)) -> float32[4]:
        r: float32[4] = 0.0
        for i in range(3):
            r[i] = A[i]
        r[3] = s
        return r
    """
    with shim():
        module, _ = load(tmp_path, source)
        mod = module.allo.customize(module.kernel).build()
        out = mod(np.array([-1.03, 1.03, 9.0], np.float32), np.array(-0.99))  # a 0-d array too
    assert out.tolist() == [-1.0, 1.0, 9.0 - 16.0, -15 / 16]


def test_a_fixed_point_quotient_is_truncated_in_its_result_type(tmp_path):
    """div_rule types Fixed(16, 8) / Fixed(16, 8) as Fixed(32, 16); `lowerFixedDiv` shifts the
    dividend left by 16 and divides with divsi: -1 / 3 is -21845 / 65536 (toward zero), not -1/3."""
    source = """
    def kernel(A: float32[2]) -> float32[2]:
        x: Fixed(16, 8) = A[0]
        y: Fixed(16, 8) = A[1]
        r: float32[2] = 0.0
        z = x / y
        r[0] = z
        w: Fixed(16, 8) = x / y
        r[1] = w
        return r
    """
    with shim():
        module, _ = load(tmp_path, source)
        out = module.allo.customize(module.kernel).build()(np.array([-1.0, 3.0], np.float32))
    assert out.tolist() == [float(np.float32(-21845 / 65536)), -86 / 256], "the quotient, then floor into 8 bits"


def test_a_fixed_point_division_by_zero_is_refused(tmp_path):
    source = """
    def kernel(A: float32[2]) -> float32[1]:
        x: Fixed(16, 8) = A[0]
        y: Fixed(16, 8) = A[1]
        r: float32[1] = 0.0
        r[0] = x / y
        return r
    """
    with shim(), pytest.raises(Unsupported, match="division by zero"):
        module, _ = load(tmp_path, source)
        module.allo.customize(module.kernel).build()(np.array([1.0, 0.001], np.float32))


def test_fixed_point_arithmetic_wider_than_a_float_holds_is_refused_by_name(tmp_path):
    """Fixed(32, 16) * Fixed(32, 16) is Fixed(64, 32): more bits than the executor's floats hold
    exactly, so it is refused rather than rounded."""
    source = """
    def kernel(A: float32[2]) -> float32[1]:
        x: Fixed(32, 16) = A[0]
        r: float32[1] = 0.0
        r[0] = x * x
        return r
    """
    with shim(), pytest.raises(Unsupported, match="wider than 53 bits"):
        module, _ = load(tmp_path, source)
        module.allo.customize(module.kernel).build()(np.array([1.5, 0.0], np.float32))
