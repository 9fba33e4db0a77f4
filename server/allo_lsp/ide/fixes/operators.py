"""ADF082, ADF091: an operator Allo cannot build, or builds as another, written as one it builds
to the same value.

ADF082: `u // v` of unsigned values -> `u / v` (`u //= v` -> `u /= v`). Allo's builder has only `floordivsi`, but `/` of
unsigned values is `divui` in the same type (`div_rule` types both), and for values that are
never negative the floor of a quotient is its truncation: the same number.
"""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Operation
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source

_NEVER_NEGATIVE = ("uint", "index")  # a loop variable (`index`) counts up from its start


def unsigned_division(source: Source, model: FileModel, problem: Problem) -> Fix:
    operation = _operation(model, problem, "//")
    if operation.left is None or operation.left.kind != "uint" or operation.right is None:
        raise Unavailable("not a division of an unsigned value")
    if operation.right.kind not in _NEVER_NEGATIVE:
        raise Unavailable("a divisor that may be negative: `//` on it is typed signed and builds")
    operator = _division_at(source, problem)
    spelled = source.text_of(operator)  # the operator with the spacing around it
    edit = source.replace(source.range(operator), spelled.replace("//", "/", 1))
    # Safe: it did not build; it now computes the quotient `//` means, in the type `//` has.
    return Fix("Divide with '/' (unsigned: the same quotient)", [edit], safe=True)


def _division_at(source: Source, problem: Problem) -> cst.FloorDivide | cst.FloorDivideAssign:
    """The `//` of `u // v`, or the `//=` of `u //= v` (the typing records that one at the statement)."""
    try:
        operator = source.find(cst.BinaryOperation, problem.range).operator
    except Unavailable:
        operator = source.find(cst.AugAssign, problem.range).operator
    if not isinstance(operator, (cst.FloorDivide, cst.FloorDivideAssign)):
        raise Unavailable("no `//` at the problem")
    return operator


def _operation(model: FileModel, problem: Problem, op: str) -> Operation:
    kernel = kernel_of(region_of(model, problem), problem.data.get("kernel"))
    typing = kernel.typing
    found = [o for o in typing.operations if o.range == problem.range and o.op == op] if typing else []
    if len(found) != 1:
        raise Unavailable(f"no typed `{op}` at the problem")
    return found[0]
