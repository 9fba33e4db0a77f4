"""Shapes of libcst nodes the extraction reads: a block's statements, a function's parameters,
the names a `for`/`with` binds, dotted names and string literals. Pure functions of the tree."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from allo_lsp.analysis.evaluate import string_value
from allo_lsp.analysis.walk import walk

# Statements with nested bodies: their bindings belong to the enclosing scope.
COMPOUND = (cst.If, cst.For, cst.While, cst.With, cst.Try)


def flatten(body) -> Iterator[cst.CSTNode]:
    """Statements of a block, simple statements split out of their lines."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            yield stmt


def body(node) -> list:
    inner = node.body
    if isinstance(inner, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return list(inner.body)
    return []


def compound_bodies(stmt) -> list:
    """Statements nested in if/for/while/with/try, in order, as one block."""
    out = list(body(stmt))
    for attr in ("orelse", "finalbody"):
        extra = getattr(stmt, attr, None)
        while extra is not None:
            out += body(extra)
            extra = getattr(extra, "orelse", None) if isinstance(extra, cst.If) else None
    for handler in getattr(stmt, "handlers", ()):
        out += body(handler)
    return out


def calls_in(stmt: cst.CSTNode) -> list[cst.Call]:
    """Calls in one statement, not descending into nested definitions nor into compound
    statements' bodies (they are visited as blocks of their own)."""
    nested = (cst.FunctionDef, cst.ClassDef, cst.IndentedBlock)
    return [node for node in walk(stmt, prune=nested) if isinstance(node, cst.Call)]


def all_params(params: cst.Parameters) -> list[cst.Param]:
    return list(params.posonly_params) + list(params.params) + list(params.kwonly_params)


def target_names(stmt) -> list[str]:
    """The names a `for` target or the `as` parts of a `with` bind."""
    names: list[str] = []
    if isinstance(stmt, cst.For):
        nodes = [stmt.target]
    else:
        nodes = [item.asname.name for item in stmt.items if item.asname]
    while nodes:
        n = nodes.pop()
        if isinstance(n, cst.Name):
            names.append(n.value)
        elif isinstance(n, (cst.Tuple, cst.List)):
            nodes += [e.value for e in n.elements]
    return names


def dotted(node) -> str:
    """`a.b.c` as text; "" for anything but names and attributes of names."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def string(node) -> str | None:
    return string_value(node) if isinstance(node, cst.SimpleString) else None


def subscript_root(node):
    """`Stream[T, 4][P]` -> `Stream`."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return node
