"""Quick fixes of the type rules (ADF082, ADF091, ADF093, ADF095, ADF096) where they are not
offered: each fix applies to one form, and the other forms of its rule get no action. The forms
that are fixed are before/after fixtures in `fixes/` (`test_code_actions.py`), whose tests run
before and after each fix in `test_fixes_run.py`."""

from textwrap import dedent, indent

import pytest
from allo_lsp.analysis import analyze
from test_code_actions import titles

_DESIGN = """\
import allo
from allo.ir.types import float32, int8, int32, uint8, uint16
import allo.dataflow as df

N = 8
total = 0


@df.region()
def top(A: TYPE[N], B: TYPE[N], C: TYPE[N]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def k(a: TYPE[N], b: TYPE[N], c: TYPE[N]):
BODY"""


def design(element: str, body: str) -> str:
    """A kernel of three `element` arrays whose body is `body`."""
    return _DESIGN.replace("TYPE", element).replace("BODY", indent(dedent(body), " " * 8))


def only(text: str, code: str) -> str:
    """`text`, having checked that it reports `code` and nothing else."""
    assert [p.code for p in analyze(text).problems] == [code]
    return text


@pytest.mark.parametrize(
    ("element", "body"),
    [
        ("float32", "for i in range(N):\n    c[i] = a[i] // b[i]\n"),  # a float `//`: no unsigned division
        ("int32", "for i in range(N):\n    c[i] = a[i] < b[i]\n"),  # a comparison stored as an int32
        ("float32", "for i in range(N):\n    c[i] = a[i] << 1\n"),  # a shift of a float
    ],
    ids=["float-floor-division", "comparison-value", "float-shift"],
)
def test_adf082_other_than_unsigned_floor_division_has_no_fix(element, body):
    unsigned = only(design("uint8", "for i in range(N):\n    c[i] = a[i] // b[i]\n"), "ADF082")
    assert titles(unsigned, "ADF082") == ["Divide with '/' (unsigned: the same quotient)"]
    assert titles(only(design(element, body), "ADF082"), "ADF082") == []


_REUSED_LOOP = "for i in range(N):\n    for i in range(N):\n        c[i] = a[i]\n"


@pytest.mark.parametrize(
    "body",
    [
        "x: int32 = 1\nfor i in range(N):\n    x: int8 = 2\n    c[i] = x\n",  # a declaration: its type is the user's
        "for i in range(N):\n    for i in range(N):\n        c[i] = a[i]\n        i = 2\n",  # the body binds it again
    ],
    ids=["declaration", "rebound-in-the-body"],
)
def test_adf095_other_than_a_loop_variable_used_as_such_has_no_fix(body):
    assert titles(only(design("int32", _REUSED_LOOP), "ADF095"), "ADF095") == ["Rename the loop variable 'i' to 'i_1'"]
    assert titles(only(design("int32", body), "ADF095"), "ADF095") == []


@pytest.mark.parametrize(
    "body",
    [
        "counts: int32[N] = 0\nc[0] = count\n",  # the close name is an array: c[0] = counts does not build
        "for i in range(N):\n    part: int32 = a[i]\nc[0] = prt\n",  # bound in a block that has ended
        "total1: int32 = 1\ntotal2: int32 = 2\nc[0] = totl\n",  # three names build: a guess between them
        "c[0] = xyzzy\n",  # nothing close
        "acc += a[0]\nc[0] = acc\n",  # `acc += v` of no declaration: the declaration is missing, not the spelling
    ],
    ids=["array", "ended-block", "two-candidates", "nothing-close", "augmented"],
)
def test_adf096_without_exactly_one_name_that_builds_has_no_fix(body):
    # `total` is the module's `total = 0`, an int Allo reads as a constant.
    assert titles(only(design("int32", "c[0] = totl\n"), "ADF096"), "ADF096") == ["Correct the name to 'total'"]
    assert titles(only(design("int32", body), "ADF096"), "ADF096") == []


@pytest.mark.parametrize(
    ("element", "body"),
    [
        # 255 - a[i] in NumPy; `a[i] ^ -1` in Int(32), stored into a uint16, keeps its high byte set
        ("uint16", "for i in range(N):\n    x: uint8 = a[i]\n    c[i] = ~x\n"),
        ("uint8", "for i in range(N):\n    c[i] = ~a[i] & b[i]\n"),  # inside an expression: Int(32) would change it
        ("int8", "for i in range(N):\n    y = ~a[i]\n    c[i] = y\n"),  # an untyped local takes the value's type
    ],
    ids=["unsigned-stored-wider", "in-an-expression", "untyped-local"],
)
def test_adf091_where_x_xor_minus_one_is_not_numpys_invert_has_no_fix(element, body):
    same_width = only(design("uint8", "for i in range(N):\n    c[i] = ~a[i]\n"), "ADF091")
    assert titles(same_width, "ADF091") == ["Write '~x' as 'x ^ -1' (Allo builds '~x' as 'x')"]
    assert titles(only(design(element, body), "ADF091"), "ADF091") == []
