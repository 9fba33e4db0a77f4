"""ADF001, ADF002: a bare scalar region parameter becomes a 1-element array, everywhere it matters.

`n: int32` -> `n: int32[1]` in the region and in each kernel parameter bound to it; bare reads in
those kernels (`local_n`, or `n` captured from the region) become `local_n[0]`; and calls of the
built module in the file pass `np.array([x], dtype=np.int32)` instead of `x`.
"""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Position, Region, RegionParam
from allo_lsp.analysis.walk import walk
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, Unavailable, counted, region_of
from allo_lsp.ide.fixes.imports import numpy_alias
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import TextEdit

_QUOTES = "\"'"  # a string annotation names its type inside them
# Calls that make an array, as `np.<name>(...)` or `x.<name>(...)`: their result is passed as is.
_ARRAY_MAKERS = frozenset(
    {
        "array",
        "asarray",
        "ascontiguousarray",
        "zeros",
        "ones",
        "full",
        "empty",
        "arange",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
        "astype",
        "reshape",
        "copy",
    }
)


def one_element_array(source: Source, model: FileModel, problem: Problem) -> Fix:
    region = region_of(model, problem)
    param = region.param(problem.data.get("param", ""))
    if param is None or param.type is None or param.type.dtype is None or not param.type.is_scalar:
        raise Unavailable("not a bare scalar region parameter")
    fn = source.function(region.range)
    edits = [_append_one(source, names.param_named(fn, param.name))]
    kernels = 0
    for kernel in region.kernels:
        kfn = source.function(kernel.range)
        bound = [kp.name for kp in kernel.params if kp.bound_to == param.name and kp.type and kp.type.is_scalar]
        for name in bound:
            edits.append(_append_one(source, names.param_named(kfn, name)))
        if param.name in kernel.captured and all(kp.name != param.name for kp in kernel.params):
            bound.append(param.name)
        for name in bound:
            edits += [source.insert(source.range(n).end, "[0]") for n in names.uses(kfn.body, name, indexed=False)]
        kernels += bool(bound)
    wraps, imports = _wrap_call_args(source, model, region, param, param.type.dtype.numpy_attr)
    details = [counted(n, noun) for n, noun in ((kernels, "kernel"), (len(wraps), "call")) if n]
    title = f"Declare '{param.name}' as {param.annotation.strip(_QUOTES)}[1]"
    if details:
        title += f" (and update {', '.join(details)})"
    # The region's interface changes: callers in other files still pass a scalar.
    return Fix(title, edits + wraps + imports, safe=False)


def _append_one(source: Source, param: cst.Param) -> TextEdit:
    """`int32` -> `int32[1]`, also inside a string annotation (`"int32"` -> `"int32[1]"`)."""
    if param.annotation is None:
        raise Unavailable(f"'{param.name.value}' has no annotation")
    ann = param.annotation.annotation
    end = source.range(ann).end
    if isinstance(ann, cst.SimpleString):
        return source.insert(Position(end.line, end.column - len(ann.quote)), "[1]")
    if not isinstance(ann, (cst.Name, cst.Attribute, cst.Call)):
        raise Unavailable("an annotation this fix does not understand")
    return source.insert(end, "[1]")


def _wrap_call_args(
    source: Source, model: FileModel, region: Region, param: RegionParam, dtype: str
) -> tuple[list[TextEdit], list[TextEdit]]:
    """The edits that wrap the scalar each call of the built module passes for `param`, and the
    edit that imports numpy when they need it and the file does not import it yet."""
    position = region.params.index(param)
    arrays = _array_names(source.module)
    np, imports = numpy_alias(source)
    wraps = []
    for call in model.calls_of(region):
        node = source.find(cst.Call, call.call_range)
        if any(a.star for a in node.args):
            continue
        positional = [a for a in node.args if a.keyword is None]
        keyword = [a for a in node.args if a.keyword is not None and a.keyword.value == param.name]
        arg = positional[position] if position < len(positional) else next(iter(keyword), None)
        if arg is None or _looks_like_array(arg.value, arrays):
            continue
        text = source.text_of(arg.value)
        wraps.append(source.replace(source.range(arg.value), f"{np}.array([{text}], dtype={np}.{dtype})"))
    return wraps, imports if wraps else []


def _looks_like_array(node: cst.BaseExpression, arrays: set[str]) -> bool:
    if isinstance(node, (cst.List, cst.Tuple)):
        return True  # a sequence already: wrapping it would add a dimension
    if isinstance(node, cst.Name):
        return node.value in arrays
    return _makes_array(node)


def _makes_array(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return name in _ARRAY_MAKERS


def _array_names(module: cst.Module) -> set[str]:
    """Names assigned an array anywhere in the file (`n_arr = np.array([3], ...)`). Scopes are
    not told apart: a name that is an array somewhere is taken to be one at every call."""
    found: set[str] = set()
    for node in walk(module):
        if isinstance(node, cst.Assign) and _makes_array(node.value):
            found |= {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
        elif isinstance(node, cst.AnnAssign) and node.value is not None and _makes_array(node.value):
            if isinstance(node.target, cst.Name):
                found.add(node.target.value)
    return found
