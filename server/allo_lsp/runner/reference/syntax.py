"""What the executor's code generation shares (`transform.py`, `typed.py`): its two refusals and
the templates it builds code from. Its own module so that the typed code generation and the
transformer that calls it do not import each other."""

from __future__ import annotations

import ast
import inspect
import types as pytypes


class Unsupported(Exception):
    """A construct the reference executor does not run (never a silently wrong answer)."""

    def __init__(self, what: str, line: int | None, message: str | None = None) -> None:
        self.line = line
        where = f" (line {line})" if line else ""
        super().__init__(message or f"{what}{where} is not supported by the reference executor; use the Allo backend")


class BuildError(Exception):
    """An error Allo reports while building (type inference, the builder): Allo prints the
    message and exits with status 1, and so does `df.build` here (`shim/allo/dataflow.py`)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(message)


class _Fill(ast.NodeTransformer):
    def __init__(self, subs: dict) -> None:
        self.subs = subs

    def visit_Name(self, node: ast.Name):
        return self.subs.get(node.id, node)


def _template(src: str, **subs):
    """`src` parsed (an expression, or one statement), its upper-case names replaced by nodes."""
    tree = ast.parse(src)
    node = tree.body[0]
    for sub in ast.walk(node):  # the template's own positions are not the user's: taken from the site
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(sub, attr):
                delattr(sub, attr)
    node = _Fill(subs).visit(node)
    return node.value if isinstance(node, ast.Expr) else node


def is_region(obj) -> bool:
    """Whether `obj` is a `@df.region()` function (marked by the stand-in, or so decorated in its source)."""
    if getattr(obj, "__allo_region__", False):
        return True
    if not isinstance(obj, pytypes.FunctionType):
        return False
    try:
        head = inspect.getsource(obj).lstrip()
    except (OSError, TypeError):
        return False
    return head.startswith("@") and ".region(" in head.split("def ", 1)[0]
