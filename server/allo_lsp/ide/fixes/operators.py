"""ADF082, ADF091: an operator Allo cannot build, or builds as another, written as one it builds
to the same value.

ADF082: `u // v` of unsigned values -> `u / v` (`u //= v` -> `u /= v`). Allo's builder has only `floordivsi`, but `/` of
unsigned values is `divui` in the same type (`div_rule` types both), and for values that are
never negative the floor of a quotient is its truncation: the same number.

ADF091: `~x` (built as `x`) stored whole -> `x ^ -1`. `and_or_rule` types `x ^ -1` as
`Int(max(bits, 32))`, so the builder extends `x` (sign- or zero-, by its type), flips every bit
with `xori`, and the store truncates or extends the result. Its low bits are those of `~x` in
`x`'s type; a store no wider than `x` keeps only those, and a wider one extends them as NumPy's
`~` would only when `x` is signed: `~x` of a `uint8` stored into a `uint16` is 255 - x in NumPy,
and `x ^ -1` would leave the high byte set. Only a whole value of an assignment is rewritten:
inside an expression its type (`Int(32)`) would change what the expression computes.
"""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, KernelTyping, Operation, Range
from allo_lsp.analysis.walk import walk
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source
from allo_lsp.protocol.typing_rules import Ty

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


def invert_as_xor(source: Source, model: FileModel, problem: Problem) -> Fix:
    operand = _operation(model, problem, "~").left
    kernel = kernel_of(region_of(model, problem), problem.data.get("kernel"))
    typing = kernel.typing
    node = source.find(cst.UnaryOperation, problem.range)
    stored = _stored_type(source, source.function(kernel.range), typing, node)
    if operand is None or operand.kind not in _INTEGERS or _typed(typing, source.range(node.expression)) is None:
        raise Unavailable("not `~` of an integer scalar")
    if stored is None or stored.kind not in _INTEGERS or not (stored.bits <= operand.bits or operand.kind == "int"):
        raise Unavailable(f"stored into a type where `x ^ -1` is not `~x` of {operand}")
    after = source.range(node.operator).end  # the operand as written, its parentheses included
    spelled = source.text_at(Range(after, problem.range.end)).strip()
    # Safe: the value stored is NumPy's `~x` in `x`'s type, as the code was written to compute.
    return Fix(
        "Write '~x' as 'x ^ -1' (Allo builds '~x' as 'x')",
        [source.replace(problem.range, f"{spelled} ^ -1")],
        safe=True,
    )


_INTEGERS = ("int", "uint")


def _stored_type(source: Source, kernel: cst.FunctionDef, typing: KernelTyping, node: cst.UnaryOperation) -> Ty | None:
    """The type `node` is stored in when it is the whole value of `c[i] = ~x` or `y: T = ~x`;
    None for any other place (and for an untyped local's first binding, which takes its type)."""
    for statement in walk(kernel.body, prune=(cst.FunctionDef, cst.Lambda)):
        if isinstance(statement, cst.Assign) and statement.value is node and len(statement.targets) == 1:
            target = source.range(statement.targets[0].target)
            if any(local.range == target for local in typing.locals):
                return None
            return _typed(typing, target)
        if isinstance(statement, cst.AnnAssign) and statement.value is node:
            return _typed(typing, source.range(statement.target))
    return None


def _typed(typing: KernelTyping, at: Range) -> Ty | None:
    """The type of the scalar expression at `at`, None for an array or an untyped one."""
    found = [e for e in typing.expressions if e.range == at and not e.shape]
    return found[0].type if found else None


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
