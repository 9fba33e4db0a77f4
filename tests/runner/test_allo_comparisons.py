"""Comparisons as Allo a098603f builds them (issue 27, found by review): the executor computes
what Allo computes, each case naming the rule of Allo's source.

`build_Compare` (allo/ir/builder.py) picks the predicate by the name of the MLIR type, and a
signless `iN` starts with "i": an ordering of integers is signed (`slt`, `sgt`) even when
`cmp_rule` gives an unsigned common type.

Each design runs through the executor as a user's `df.build(top, target="simulator")`."""

import numpy as np
import pytest

from tests.runner.reference_harness import run


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
