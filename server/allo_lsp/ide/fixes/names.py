"""Names in a kernel: where its body uses one, renaming a parameter, and picking an unused name."""

from __future__ import annotations

import keyword

import libcst as cst

from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.fixes.base import Unavailable
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import TextEdit


def uses(body: cst.CSTNode, name: str, *, indexed: bool = True) -> list[cst.Name]:
    """The `Name` nodes in `body` that name `name`; `indexed=False` leaves out `name[...]`."""
    visitor = _Uses(name, indexed)
    body.visit(visitor)
    return visitor.found


class _Uses(cst.CSTVisitor):
    def __init__(self, name: str, indexed: bool) -> None:
        self.name = name
        self.indexed = indexed
        self.found: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `x.name`: the attribute is not the variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # `f(name=...)`: the keyword is not the variable
        return False

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if self.indexed or not (isinstance(node.value, cst.Name) and node.value.value == self.name):
            return True
        for element in node.slice:
            element.visit(self)
        return False


def params(fn: cst.FunctionDef) -> list[cst.Param]:
    """Plain parameters; `*args`, `/`, keyword-only and defaults have no place in a region or a
    kernel, and a fix that reorders or binds them by position would guess."""
    p = fn.params
    if p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.CSTNode) or p.star_kwarg:
        raise Unavailable("parameters other than plain ones")
    if any(param.default is not None for param in p.params):
        raise Unavailable("parameters with defaults")
    return list(p.params)


def param_named(fn: cst.FunctionDef, name: str) -> cst.Param:
    for param in params(fn):
        if param.name.value == name:
            return param
    raise Unavailable(f"no parameter {name!r} in {fn.name.value!r}")


def rename(source: Source, fn: cst.FunctionDef, old: str, new: str) -> list[TextEdit]:
    """Parameter `old` of `fn` and its uses in the body become `new`."""
    names = [param_named(fn, old).name, *uses(fn.body, old)]
    return [source.replace(source.range(n), new) for n in names]


def taken(source: Source, model: FileModel, kernel: cst.FunctionDef) -> set[str]:
    """Names a new parameter of `kernel` must avoid: every name in the file outside the other
    kernels' definitions. Wider than what Allo sees (a test function's locals count too), so a
    chosen name may be longer than needed but never clashes."""
    others = {
        id(fn) for region in model.regions for k in region.kernels if (fn := source.function(k.range)) is not kernel
    }
    visitor = _AllNames(others)
    source.module.visit(visitor)
    return visitor.names


class _AllNames(cst.CSTVisitor):
    def __init__(self, skipped: set[int]) -> None:
        self.skipped = skipped
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return id(node) not in self.skipped


def fresh(wanted: str, taken: set[str]) -> str:
    """`wanted`, or `wanted_1`, `wanted_2`... when it is taken."""
    if not wanted.isidentifier() or keyword.iskeyword(wanted):
        raise Unavailable(f"{wanted!r} is not a name")
    name, i = wanted, 1
    while name in taken:
        name, i = f"{wanted}_{i}", i + 1
    return name
