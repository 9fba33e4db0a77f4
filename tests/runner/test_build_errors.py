"""Build errors Allo a098603f's front end raises at `df.build` (issue 27 point 3), each on a small
design: the reference executor's `df.build` prints Allo's message and exits with status 1 before
anything runs, and `check` reports the same line with its ADF code and Allo's message. The
inventory of every such error is docs/allo_build_errors.md; the rules' fixtures
(tests/analysis/fixtures/ADF088.py, ADF089.py, ADF095.py) pin ranges and near misses."""

import textwrap

import numpy as np
import pytest
from allo_lsp.analysis import analyze
from allo_lsp.runner.reference.typed import MLIRError

from tests.runner.reference_harness import HEADER, load, run, shim

_DESIGN = """
K = 3


def helper(x: int32) -> int32:
    return x + 1


@df.region()
def top(A: int32[4], R: int32[1]):
    s: Stream[int32[4], 2]

    @df.kernel(mapping=[1], args=[A])
    def p(a: int32[4]):
        s.put(a)

    @df.kernel(mapping=[1], args=[R])
    def k(r: int32[1]):
        b: int32[4] = 2
{body}
"""
_FIRST = 23  # the body's first line (0-based) in HEADER + the design


def _design(body: str) -> str:
    return _DESIGN.replace("{body}", textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))


# (Allo's function that raises, the body, the line of the body the error is on (0-based), the
# ADF code, Allo's message)
CASES = [
    ("visit_broadcast", "x: int32 = b\nr[0] = x", 0, "ADF088", "Cannot broadcast (4,) to ()"),
    ("visit_broadcast", "x: int32 = s.get()\nr[0] = x", 0, "ADF088", "Cannot broadcast (4,) to ()"),
    ("visit_broadcast", "r[0] = b", 0, "ADF088", "Cannot broadcast (4,) to ()"),
    ("visit_broadcast", "x: int32 = 0\nx = b\nr[0] = x", 1, "ADF088", "Cannot broadcast (4,) to ()"),
    (
        "visit_broadcast",
        "t: int32[2] = b\nr[0] = t[0]",
        0,
        "ADF088",
        "Shape mismatch, got (2,) and (4,), and cannot be broadcasted",
    ),
    ("visit_assignment_val", "t: int32[2] = [1, 2, 3]\nr[0] = t[0]", 0, "ADF088", "Shape mismatch, got (2,) and (3,)"),
    ("visit_assignment_val", "t = [1, 2]\nr[0] = 1", 0, "ADF089", "AssertionError (visit_assignment_val"),
    ("ASTVisitor.__call__", "for i in range(4):\n    break\nr[0] = 1", 1, "ADF089", 'Unsupported node "Break"'),
    ("ASTVisitor.__call__", "for i in range(4):\n    continue\nr[0] = 1", 1, "ADF089", 'Unsupported node "Continue"'),
    ("ASTVisitor.__call__", "assert b[0] > 0\nr[0] = 1", 0, "ADF089", 'Unsupported node "Assert"'),
    ("ASTVisitor.__call__", "f = lambda v: v\nr[0] = 1", 0, "ADF089", 'Unsupported node "Lambda"'),
    ("ASTVisitor.__call__", "b[0:2] = [1, 2]\nr[0] = 1", 0, "ADF089", 'Unsupported node "List"'),
    ("ASTVisitor.__call__", "s.put([1, 2, 3, 4])\nr[0] = 1", 0, "ADF089", 'Unsupported node "List"'),
    ("ASTVisitor.__call__", "vals = [b[j] for j in range(2)]\nr[0] = 1", 0, "ADF089", 'Unsupported node "ListComp"'),
    ("visit_For", "for v in b:\n    r[0] = v", 0, "ADF089", "Unsupported for loop"),
    (
        "visit_For",
        "for i in range(4):\n    r[0] = i\nelse:\n    r[0] = 1",
        0,
        "ADF089",
        "'else' clause for 'for' not supported in Allo kernels",
    ),
    (
        "visit_While",
        "while r[0] > 5:\n    r[0] = 1\nelse:\n    r[0] = 2",
        0,
        "ADF089",
        "'else' clause for 'while' not supported in Allo kernels",
    ),
    ("visit_Assign", "x = y = 1\nr[0] = 1", 0, "ADF089", "chained assignment not supported"),
    ("visit_Assign", "x, y = 1, 2, 3\nr[0] = x", 0, "ADF089", "AssertionError (visit_Assign: 2 targets and 3 values"),
    ("visit_Assign", "x, y = b\nr[0] = x", 0, "ADF089", "object of type 'NoneType' has no len()"),
    ("visit_Attribute", "r[0] = b.shape[0]", 0, "ADF089", "Unsupported attribute `shape`"),
    ("visit_Call", "r[0] = b.sum()", 0, "ADF089", "Unsupported function call or attribute method `.sum`"),
    ("visit_Expr", "b[0] + 1\nr[0] = 1", 0, "ADF089", "Unsupported expression: <ast.BinOp object"),
    ("visit_Call", "r[0] = int8(b[0])", 0, "ADF089", "'Int' object has no attribute '__name__'"),
    ("build_Return", "r[0] = 1\nreturn b[0]", 1, "ADF089", "Return value should have a dtype in function signature"),
    (
        "build_Return",
        "for i in range(4):\n    if b[i] == 0:\n        return\n    r[0] = i",
        2,
        "ADF089",
        "Unsupported early return",
    ),
    ("visit_Call", "r[0] = min(b[0], b[1], b[2])", 0, "ADF089", "Only support two arguments for `min` and `max`"),
    ("visit_Call", "r[0] = int(b[0], 10)", 0, "ADF089", "Only support one argument for `float` and `int`"),
    ("visit_Call", "x: int8 = 1\nr[0] = x.reverse(1)", 1, "ADF089", "Only support zero argument for attribute methods"),
    ("visit_Call", "r[0] = float32(b[0])", 0, "ADF089", "'Float' object has no attribute '__name__'"),
    (
        "visit_all_for",
        "for i in range(4):\n    for i in range(2):\n        r[0] = 1",
        1,
        "ADF095",
        "Please choose a different name for the loop iterator.",
    ),
    (
        "visit_all_for",
        "for b in range(2):\n    r[0] = 1",
        0,
        "ADF095",
        "Please choose a different name for the loop iterator.",
    ),
    (
        "visit_all_for",
        "for A in range(2):\n    r[0] = 1",  # a parameter of the region
        0,
        "ADF095",
        "Please choose a different name for the loop iterator.",
    ),
    (
        "visit_AnnAssign",
        "x: int32 = 0\nx: float32 = 1.0\nr[0] = x",
        1,
        "ADF095",
        "Invalid assignment to x, type mismatch.",
    ),
    (
        "_add_type_mapping",
        "c: int8[4] = 1\nd: int8[4] = allo.add(c, b)\nr[0] = d[0]",
        1,
        "ADF082",
        "Cannot overwrite type mapping T1 = i8 by type i32",
    ),
    ("build_library_op", "d: int32[4] = b % 3\nr[0] = d[0]", 0, "ADF082", "AssertionError: `%` of an array"),
    ("build_slices", "m: int32[4, 2] = 1\nt: int32[2, 2] = m[0:2]\nr[0] = t[0, 0]", 1, "ADF089", "'Slice' object"),
    (
        "visit_library_op",
        "m: int32[2, 3] = 1\nn: int32[2, 2] = allo.matmul(m, m)\nr[0] = n[0, 0]",
        1,
        "ADF088",
        "The last dimension of the first input and the second last dimension of the second input must be",
    ),
    ("build_library_op", "d: int32[4] = b << 1\nr[0] = d[0]", 0, "ADF082", "AssertionError: `<<` of an array"),
    ("build_Call", "s.put(b, b)\nr[0] = 1", 0, "ADF021", "Stream can only have one argument"),
    ("build_single_for", "for i in range(0, 4, 1, 1):\n    r[0] = i", 0, "ADF089", "Unsupported range"),
    ("build_single_for", "for i in range():\n    r[0] = i", 0, "ADF089", "list index out of range"),
    ("visit_AnnAssign", "b[0]: int32 = 1\nr[0] = 1", 0, "ADF089", "target of AnnAssign must be Name"),
    ("visit_AugAssign", "b.x += 1\nr[0] = 1", 0, "ADF089", "Unsupported AugAssign"),
    ("visit_Constant", "x: int32 = 1j\nr[0] = x", 0, "ADF089", "Unsupported constant type"),
    ("build_slices", "t: int32[2] = b[-2:]\nr[0] = t[0]", 0, "ADF088", "Unsupported negative index"),
    ("build_slices", "t: int32[8] = b[0:8]\nr[0] = t[0]", 0, "ADF088", "Index out of range"),
    ("build_slices", "t: int32[2] = b[0:4:0]\nr[0] = t[0]", 0, "ADF088", "Unsupported negative step"),
    ("build_slices", "t: int32[1] = b[0:2:4]\nr[0] = t[0]", 0, "ADF088", "Step larger than range"),
    ("build_slices", "t: int32[2] = b[0:4:K]\nr[0] = t[0]", 0, "ADF088", "Unsupported step type"),
    ("visit_Name", "total: int32 = 0\nr[0] = totl", 1, "ADF096", "Unsupported Name `totl`"),
    ("visit_Attribute", "x: float32 = np.pi\nr[0] = 1", 0, "ADF089", "Unsupported global variable `np`"),
    ("visit_Call", "r[0] = twice(b[0])", 0, "ADF096", "Unsupported function call twice"),
    ("visit_Call", "r[0] = mathx.floor(b[0])", 0, "ADF096", "Unsupported function call or attribute method `.floor`"),
    (
        "visit_AugAssign",
        "for i in range(4):\n    acc += b[i]\nr[0] = 1",
        1,
        "ADF096",
        "Variable acc not defined in current scope.",
    ),
]


@pytest.mark.parametrize(("raiser", "body", "line", "code", "message"), CASES, ids=[c[4][:40] for c in CASES])
def test_allos_build_error_is_raised_by_df_build_and_reported_by_check(
    tmp_path, capsys, raiser, body, line, code, message
):
    source = _design(body)
    problems = [p for p in analyze(HEADER + source).problems if p.code != "ADF022"]  # a block put, not got
    assert [(p.code, p.range.start.line) for p in problems] == [(code, _FIRST + line)], f"check, as Allo's {raiser}"
    assert message in problems[0].message
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert message in capsys.readouterr().out, f"df.build, as Allo's {raiser}"


@pytest.mark.parametrize(
    "body",
    [
        "x: int32[4] = s.get()\nr[0] = x[0] + b[1]",  # a block of the stream's shape
        "u: int32[4] = 0\nv = b\nr[0] = u[0] + v[3]",  # a scalar broadcast, an untyped copy
        "for i in range(4):\n    r[0] = i\nfor i in range(2):\n    r[0] = r[0] + i",  # one block after the other
        "x: int32 = 0\nx: int32 = 5\nr[0] = x + s.get()[0]",  # the same type declared again
        "for i, j in allo.grid(2, 2):\n    r[0] = i + j",
        "t: int32[2, 2] = [[1, 2], [3, 4]]\nt = [[5, 6], [7, 8]]\nr[0] = t[1, 1]",  # a list of the declared shape
        "acc: int32 = 0\nfor i in range(4):\n    acc += b[i]\nr[0] += acc",  # declared first; a parameter's element
        "r[0] = helper(b[0]) + K",  # a module-level function and constant
        "L: ConstExpr[int32] = min(1, 2, 3)\nr[0] = L",  # Python's: ASTResolver evaluates a ConstExpr's value
        "r[0] = 1\nreturn",  # the function's last statement
        "d: int32[4] = allo.add(b, 1)\ne: int32[4] = allo.mul(b, d)\nr[0] = e[3]",  # a scalar is filled in b's type
        "c: int8[4] = 1\nd: int32[4] = c * b - b / 2\nr[0] = d[0]",  # an operator casts its operands
        "m: int32[4, 2] = 1\nt: int32[2, 2] = m[0:2, :]\nr[0] = t[0, 0] + b[1:3][0]",  # each dimension sliced
        "x, y = 1, 2\nr[0] = x + y",  # one value per target
        "for a in range(2):\n    r[0] = a",  # another kernel's parameter, not a symbol here
        "L: ConstExpr[int32] = int(np.pi)\nr[0] = L",  # Python's: ASTResolver evaluates a ConstExpr's value
        "for i in range(2):\n    t: int32[2] = b[i : i + 2]\n    r[0] = t[1]",  # bounds known at run time only
        "t: int32[2] = b[0:4:2]\nu: int32[2] = b[2:]\nr[0] = t[1] + u[0]",  # constant slices in the array
        '"""A docstring."""\n...\nr[0] = 1',  # constant statements: visit_Expr visits none
    ],
)
def test_what_allo_builds_is_not_refused(tmp_path, body):
    source = _design(body)
    if "s.get()" not in body:  # the block put is got somewhere
        source += "\n    @df.kernel(mapping=[1])\n    def drain():\n        z: int32[4] = s.get()\n"
    problems = [
        p for p in analyze(HEADER + source).problems if p.code in ("ADF082", "ADF088", "ADF089", "ADF095", "ADF096")
    ]
    assert problems == []
    R = np.zeros(1, np.int32)
    run(tmp_path, source, np.arange(4, dtype=np.int32), R)


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("for i in range(4):\n    r[0] = b[i, 0]", 1, "'affine.load' op affine map num results must equal memref rank"),
        (
            "for i in range(4):\n    b[i, 0] = 1\nr[0] = 1",
            1,
            "'affine.store' op affine map num results must equal memref rank",
        ),
        (
            "x: int32 = b[0]\nr[0] = b[x, 0]",
            1,
            "'memref.load' op incorrect number of indices for load, expected 1 but got 2",
        ),
    ],
)
def test_an_array_indexed_past_its_rank_is_refused_by_mlirs_verifier(tmp_path, body, line, message):
    # visit_Subscript types `b[i, 0]` of an int32[4] a scalar; build_memory_access writes a load
    # of two indices into a rank-1 memref, which _build_top's canonicalize refuses (an MLIRError).
    source = _design(body)
    problems = [p for p in analyze(HEADER + source).problems if p.code != "ADF022"]
    assert [(p.code, p.range.start.line) for p in problems] == [("ADF088", _FIRST + line)]
    assert message in problems[0].message
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(MLIRError, match=message.replace("(", r"\(")):
            module.df.build(module.top, target="simulator")


_PUT = """
@df.region()
def top(A: int32[4], R: int32[4]):
    s: Stream[{element}, 2]

    @df.kernel(mapping=[1], args=[A])
    def p(a: int32[4]):
        t: int8[4] = 1
        s.put({value})

    @df.kernel(mapping=[1], args=[R])
    def c(r: int32[4]):
        x: {element} = s.get()
        r[0] = 1


def build():
    return df.build(top, target="simulator")
"""


@pytest.mark.parametrize(
    ("element", "value", "message"),
    [
        ("int32", "a", "'memref.store' op store index operand count not equal to memref rank"),  # an array
        ("int32[4]", "a[0]", "'memref.store' op store index operand count not equal to memref rank"),
        ("int32[4]", "t", "'memref.store' op failed to verify that type of 'value' matches element type"),
        ("float32", "a", "'memref.store' op failed to verify that type of 'value' matches element type"),
    ],
)
def test_a_put_of_another_rank_or_an_unconverted_type_is_refused_for_the_simulator(tmp_path, element, value, message):
    # _process_function_streams copies an array put into the FIFO element by element (1 + its rank
    # indices), stores a scalar at the tail index, and converts only a scalar between integers.
    source = _PUT.format(element=element, value=value)
    problems = analyze(HEADER + source).problems
    assert [(p.code, p.range.start.line) for p in problems] == [("ADF087", 12)]
    assert message in problems[0].message
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(MLIRError, match=message.replace("(", r"\(")):
            module.build()


def test_a_put_of_the_streams_type_and_rank_builds_for_the_simulator(tmp_path):
    source = _PUT.format(element="int8[4]", value="t")  # and int32 of `a[0]`, converted, is covered above
    assert [p.code for p in analyze(HEADER + source).problems] == []
    with shim():
        module, _ = load(tmp_path, source)
        module.build()


_STREAM_INDEX = """
def make(T):
    @df.region()
    def top(R: int32[4]):
        fifo: Stream[T, 2][4]

        @df.kernel(mapping=[4])
        def p():
            j = df.get_pid()
            fifo[min(j, 3, 4)].put(j)

        @df.kernel(mapping=[4], args=[R])
        def c(r: int32[4]):
            j = df.get_pid()
            r[j] = fifo[j].get()

    return top


top = make(TYPE)
"""


@pytest.mark.parametrize("element", ["int32", "UNKNOWN_T"])
def test_a_stream_arrays_index_is_pythons_and_no_build_error(tmp_path, element):
    # get_symbolic_expr evaluates `fifo[min(j, 3, 4)]`'s index in Python: min of three is fine
    # there, whether or not the analysis knows the stream's element type (`make(T)`).
    source = _STREAM_INDEX.replace("TYPE", element)
    assert [p.code for p in analyze(HEADER + source).problems if p.code.startswith(("ADF08", "ADF09"))] == []
    if element == "int32":
        R = np.zeros(4, np.int32)
        run(tmp_path, source, R)
        assert R.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("global_line", "body"),
    [
        ("W = np.array([1, 2, 3, 4], dtype=np.int32)", "r[0] = W[1]"),  # an array: data, not a constant
        ("W = (1, 2)", "r[0] = W[0]"),
        ("W = [1, 2]", "for i in range(W[0]):\n    r[0] = i"),  # visit_all_for visits range's arguments
        ("W = 'abc'", "r[0] = W"),
        ("W = np.int32(4)", "for i in range(W):\n    r[0] = i"),  # a NumPy scalar that is no Python int
    ],
)
def test_a_global_that_is_data_is_refused_by_df_build(tmp_path, capsys, global_line, body):
    """visit_Name reads a global only as an int, a float or an Allo type ("Unsupported global
    variable"): the executor, which has the module's values, refuses the rest at df.build (it ran
    them, reading the array); `check` reports it (ADF089) from the global's binding."""
    source = "import numpy as np\n" + global_line + "\n" + _design(body)
    reported = [p for p in analyze(HEADER + source).problems if p.code == "ADF089"]
    assert [p.message.endswith("(Unsupported global variable `W`).") for p in reported] == [True]
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert "Unsupported global variable `W`" in capsys.readouterr().out


def test_a_global_array_assigned_whole_or_by_a_subscript_is_a_constant_tensor(tmp_path):
    """visit_assignment_val: a global NumPy array, or its subscript, as an assignment's value is a
    constant tensor (Allo's tests/dataflow/test_df_unit.py::test_const_arrays), not a read of a global."""
    source = "import numpy as np\nW = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.int32)\n"
    source += _design("t: int32[4] = W[1]\nu: int32[2, 4] = W\nr[0] = t[2] + u[0, 3]")
    source += "\n    @df.kernel(mapping=[1])\n    def drain():\n        z: int32[4] = s.get()\n"
    assert [p.code for p in analyze(HEADER + source).problems if p.code == "ADF089"] == []
    R = np.zeros(1, np.int32)
    run(tmp_path, source, np.arange(4, dtype=np.int32), R)
    assert R[0] == 7 + 4


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("u: int32[4, 2] = W\nr[0] = u[0, 0]", "`W` shape mismatch, got (2, 4) and (4, 2)"),
        ("u = W\nr[0] = 1", "AssertionError (visit_assignment_val: a global NumPy array"),
    ],
)
def test_a_global_array_assigned_whole_has_exactly_its_targets_declared_shape(tmp_path, capsys, body, message):
    """visit_assignment_val asserts the array's shape is the target's, which must be declared;
    the executor, which has the array, refuses the others at df.build (NumPy's broadcast error at
    run time, or the array read as it is). `check` reports an untyped target (ADF089); it does not
    know a global array's shape."""
    source = "import numpy as np\nW = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=np.int32)\n" + _design(body)
    reported = [p.message for p in analyze(HEADER + source).problems if p.code in ("ADF088", "ADF089")]
    assert [message in m for m in reported] == ([True] if body.startswith("u = W") else [])
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert message in capsys.readouterr().out


def test_a_global_int_float_or_type_is_read(tmp_path):
    source = "import numpy as np\n"
    source += "F = np.float64(0.5)\nT = int32\n" + _design(
        "x: T = 2\nr[0] = x + K + int(F * 2.0)"
    )  # np.float64 is a float
    source += "\n    @df.kernel(mapping=[1])\n    def drain():\n        z: int32[4] = s.get()\n"
    assert [p.code for p in analyze(HEADER + source).problems if p.code == "ADF089"] == []
    R = np.zeros(1, np.int32)
    run(tmp_path, source, np.arange(4, dtype=np.int32), R)
    assert R[0] == 2 + 3 + 1
