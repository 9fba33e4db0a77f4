"""A plain Allo function (`allo.customize(fn).build()`) run with Allo's storage semantics: its
body is rewritten as a kernel body is (`transform.py`: typed locals, typed stores, bit access,
row-major addressing; its arithmetic in Allo's types, `typed.py`), its arguments take their annotated types and its result the return type.
"""

from __future__ import annotations

import ast
import threading

import numpy as np
from allo_lsp.runner.reference import library, typed
from allo_lsp.runner.reference.transform import REF, KernelTransformer, Unsupported
from allo_lsp.runner.reference.types import ArrayType, ScalarType, as_allo_array


class _Solo:
    """The scheduler a plain function sees: one PE, no streams."""

    def __init__(self, name: str) -> None:
        self.local = threading.local()
        self.local.pe, self.local.pid = name, (0,)


def compile_function(fn):
    from allo_lsp.runner.reference.region import _is_allo, _parse, evaluate_type, is_region, run_region

    fdef, ns = _parse(fn)
    if not isinstance(fdef, ast.FunctionDef):
        raise Unsupported(f"allo.customize of {fn!r}", None)
    table: list = []

    def type_index(node: ast.expr) -> int:
        table.append(evaluate_type(node, ns, node.lineno))
        return len(table) - 1

    arg_types = [
        evaluate_type(a.annotation, ns, a.lineno) if a.annotation is not None else None for a in fdef.args.args
    ]
    result_type = evaluate_type(fdef.returns, ns, fdef.lineno) if fdef.returns is not None else None
    is_allo = lambda n: _is_allo(ns.get(n), n)  # noqa: E731
    types = typed.kernel_types(fdef, ns, arg_types, lambda node: evaluate_type(node, ns, node.lineno), is_allo, {})
    fdef = KernelTransformer(is_allo, lambda n: is_region(ns.get(n)), type_index, types=types).visit(fdef)
    fdef.decorator_list, fdef.returns = [], None
    for a in fdef.args.args:
        a.annotation = None
    scope = dict(ns)
    solo = _Solo(fdef.name)
    scope["__ref_int"] = int
    scope.update(typed.HELPERS)
    scope[REF] = library.Runtime(solo, table, lambda f, arrays, generic: run_region(f, arrays, generic), {}, fdef.name)
    exec(compile(ast.fix_missing_locations(ast.Module([fdef], [])), fn.__code__.co_filename, "exec"), scope)
    body = scope[fdef.name]

    def call(*args):
        typed = [_typed(a, t) for a, t in zip(args, arg_types)]
        solo.local.pe, solo.local.pid = fdef.name, (0,)
        result = body(*typed)
        if isinstance(result_type, ArrayType):
            return np.asarray(result_type.elem.cast_array(np.broadcast_to(result, result_type.shape))).copy()
        if isinstance(result_type, ScalarType):
            return result_type.cast(result)
        return result

    return call


def _typed(value, kind):
    if isinstance(kind, ArrayType):
        return as_allo_array(np.asarray(value), kind.elem)
    if isinstance(kind, ScalarType):
        return kind.cast(value)
    return value
