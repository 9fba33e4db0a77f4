"""protocol/build_errors.py against the rules of Allo a098603f it mirrors: `visit_broadcast`
(NumPy's broadcasting, dimension by dimension after padding the shorter shape with 1s; an
assignment's result must be its target's shape), the list literal's shape `visit_assignment_val`
compares exactly, and the names a kernel must find outside itself."""

import ast

import pytest
from allo_lsp.protocol import build_errors as forms


@pytest.mark.parametrize(
    ("lhs", "rhs", "match_lhs", "shape", "message"),
    [
        ((), (4,), True, None, "Cannot broadcast (4,) to ()"),  # an array into a scalar
        ((4,), (), True, (4,), None),  # a scalar into an array
        ((4,), (1,), True, (4,), None),  # a dimension of 1 stretched
        ((1,), (4,), True, None, "Cannot broadcast (4,) to (1,)"),  # the target may not stretch
        ((2,), (4,), True, None, "Shape mismatch, got (2,) and (4,), and cannot be broadcasted"),
        ((4, 4), (4,), True, (4, 4), None),  # the value padded on the left
        ((4,), (2, 4), True, None, "Cannot broadcast (2, 4) to (4,)"),
        ((1,), (4,), False, (4,), None),  # an operator stretches either side
        ((4,), (2,), False, None, "Shape mismatch, got (4,) and (2,), and cannot be broadcasted"),
        ((2, 1), (1, 3), False, (2, 3), None),
    ],
)
def test_broadcast_is_visit_broadcasts(lhs, rhs, match_lhs, shape, message):
    assert forms.broadcast(lhs, rhs, match_lhs) == (shape, message)


@pytest.mark.parametrize(
    ("literal", "shape"),
    [("[1, 2, 3]", (3,)), ("[[1, 2], [3, 4]]", (2, 2)), ("[[1, 2], [3]]", None), ("[]", (0,)), ("[(1, 2)]", (1, 2))],
)
def test_a_list_literals_shape_is_numpys(literal, shape):
    assert forms.literal_shape(ast.parse(literal, mode="eval").body) == shape


def test_free_names_are_what_the_kernel_binds_nowhere():
    fn = ast.parse(
        "def k(a):\n"
        "    x = a[0] + N\n"
        "    for i in range(M):\n"
        "        y: int32 = x + helper(i)\n"
        "    with allo.meta_for(2) as j:\n"
        "        z = j + abs(y)\n"
    ).body[0]
    assert forms.free_names(fn) == {"N", "M", "int32", "helper", "allo"}  # builtins (range, abs) aside
    assert forms.assigned_names(fn) == {"a", "x", "i", "y", "j", "z"}


def test_a_compound_statement_is_shown_at_its_keyword():
    node = ast.parse("try:\n    x = 1\nexcept E:\n    pass\n").body[0]
    head = forms.head(node)
    assert (head.lineno, head.col_offset, head.end_lineno, head.end_col_offset) == (1, 0, 1, 3)
