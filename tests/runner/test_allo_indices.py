"""Array indices and loop bounds as Allo a098603f builds them (issue 27): the executor reads the
element Allo reads, or refuses by name what Allo's build or LLVM leaves undefined.

- `build_indices` (allo/ir/builder.py) first tries `build_affine_expr`: when every index is
  made of affine loop variables, Python ints (constants, `get_pid()`) and integer literals through
  arithmetic, the indices are an affine map, whose `%` is a floor modulo and `/`, `//` a floor
  division (`AffineExpr`'s `mod`, `floordiv`): never the types' `remsi`/`divsi`.
- Otherwise each index is built as a value and cast to `index` by `build_cast_op`, whose
  `IndexCastOp` sign-extends whatever the Allo type: an unsigned value with its top bit set, and
  a comparison's true (an `i1`), are negative there.
- A loop is an `affine.for` when its bounds are affine (`build_single_for`); otherwise an
  `scf.for` whose bounds are cast to `index` the same way.

Each design runs through the executor as a user's `df.build(top, target="simulator")`."""

import numpy as np
import pytest
from allo_lsp.runner.reference.transform import Unsupported
from allo_lsp.runner.reference.typed import MLIRError
from allo_lsp.runner.reference.values import OutOfBuffer

from tests.runner.reference_harness import run

_FILL = "A: int32[8] = 0\nfor t in range(8):\n    A[t] = t * 10"


def _run(tmp_path, body: str, n: int = 4, params: str = "") -> list:
    lines = "\n".join(f"            {line}" for line in body.strip().splitlines())
    source = f"""
    N = 4
    @df.region()
    def top(R: int32[{n}]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: int32[{n}]):
{lines}
    """
    result = np.zeros(n, np.int32)
    run(tmp_path, source, result)
    return result.tolist()


@pytest.mark.parametrize(
    ("body", "expected", "rule"),
    [
        ("for i in range(4):\n    r[i] = A[(i - 1) % 4]", [30, 0, 10, 20], "affine mod: (0 - 1) mod 4 is 3"),
        ("for i in range(4):\n    r[i] = A[(i - 3) % N]", [10, 20, 30, 0], "a module constant is affine"),
        ("for i in range(4):\n    r[i] = A[(i + 1) / 2]", [0, 10, 10, 20], "`/` is floordiv in an affine map"),
        ("for i in range(1, 4):\n    r[i] = A[(i - 2) // 2 + 1]", [0, 0, 10, 10], "floordiv: (1 - 2) floordiv 2 is -1"),
        ("for i, j in allo.grid(2, 2):\n    r[i * 2 + j] = A[(j - i) % 3]", [0, 10, 20, 0], "grid: affine"),
    ],
)
def test_an_affine_index_is_a_floor_modulo_and_division(tmp_path, body, expected, rule):
    # The old code computed these in the index type (remsi, divsi): A[-1] was out of the buffer.
    assert _run(tmp_path, f"{_FILL}\n{body}") == expected, rule


def test_a_non_affine_index_is_computed_in_its_types(tmp_path):
    # `i - d` with an int32 local `d` is no affine expression (a local is no dimension): the
    # index is computed in Allo's types (remsi keeps the dividend's sign) and A[-1] is outside.
    with pytest.raises(OutOfBuffer, match=r"index \(-1,\)"):
        _run(tmp_path, f"{_FILL}\nd: int32 = 1\nfor i in range(4):\n    r[i] = A[(i - d) % 4]")
    assert _run(tmp_path, f"{_FILL}\nd: int32 = 1\nfor i in range(1, 4):\n    r[i] = A[(i - d) % 4]") == [0, 0, 10, 20]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("a: uint8 = 100\nB: int32[256] = 0\nB[100] = 5\nr[0] = B[a]", [5, 0, 0, 0]),
        ("a: int8 = 3\nr[0] = A[a]", [30, 0, 0, 0]),
        ("a: int32 = 3\nb: int32 = 2\nr[0] = A[a < b]", [0, 0, 0, 0]),  # false: index 0
    ],
)
def test_a_non_affine_index_is_index_cast(tmp_path, body, expected):
    assert _run(tmp_path, f"{_FILL}\n{body}") == expected


@pytest.mark.parametrize(
    "body",
    [
        "a: uint8 = 200\nB: int32[256] = 0\nr[0] = B[a]",  # IndexCastOp sign-extends 0xC8: -56
        "a: int32 = 1\nb: int32 = 2\nr[0] = A[a < b]",  # true, an i1 sign-extended: -1
        "a: uint8 = 1\nb: uint8 = 2\nA[a < b] = 7\nr[0] = A[0]",  # a store, the same cast
    ],
)
def test_an_index_cast_sign_extends_out_of_the_array(tmp_path, body):
    # build_indices -> build_cast_op(..., Index()): IndexCastOp, signed. The old code read A[200]
    # (and A[True] crashed in numpy: a boolean mask, blamed on the user's line).
    with pytest.raises(OutOfBuffer, match=r"index \(-"):
        _run(tmp_path, f"{_FILL}\n{body}")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "for i, j in allo.grid(2, 2):\n    r[0] = A[i < j]",
            "'memref.load' op operand #1 must be variadic of index, but got 'i1'",
        ),
        ("f: float32 = 1.0\nr[0] = A[f < 2.0]", "'arith.fptoui' op operand #0 must be floating-point-like"),
    ],
)
def test_a_comparison_index_that_no_cast_applies_to_does_not_build(tmp_path, body, message):
    # Two index values compared (`i < 1` is Int(33), cast with IndexCastOp): build_cast_op(Index -> Index) emits nothing and the i1 is the
    # index; a float comparison is FPToUIOp of the i1. MLIR's verifier refuses either.
    with pytest.raises(MLIRError, match=message):
        _run(tmp_path, f"{_FILL}\n{body}")


def test_a_shift_in_an_affine_index_is_refused_by_name(tmp_path):
    # build_affine_expr combines AffineExprs, which have no shift: no value Allo computes.
    with pytest.raises(Unsupported, match="`<<` in an array index"):
        _run(tmp_path, f"{_FILL}\nfor i in range(2):\n    r[i] = A[i << 1]")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("n: uint8 = 200\nc: int32 = 0\nfor i in range(n):\n    c += 1\nr[0] = c", [0, 0, 0, 0]),
        ("n: uint8 = 100\nc: int32 = 0\nfor i in range(n):\n    c += 1\nr[0] = c", [100, 0, 0, 0]),
        ("n: int32 = 3\nfor i in range(n):\n    r[i] = i", [0, 1, 2, 0]),
        ("for i in range(4):\n    for j in range(i, 4):\n        r[i] += 1", [4, 3, 2, 1]),
        ("n: uint8 = 200\nc: int32 = 0\nfor i, j in allo.grid(n, 2):\n    c += 1\nr[0] = c", [0, 0, 0, 0]),
        ("n: int32 = 3\nc: int32 = 0\nfor i, j in allo.grid(n, 2):\n    c += 1\nr[0] = c", [6, 0, 0, 0]),
    ],
)
def test_an_scf_loops_bounds_are_index_cast(tmp_path, body, expected):
    # build_single_for: bounds that are no affine map (a local) make an scf.for, each bound cast
    # to index (IndexCastOp sign-extends: a uint8 200 is -56, so no iteration runs). The old code
    # ran 200 iterations.
    assert _run(tmp_path, body) == expected
