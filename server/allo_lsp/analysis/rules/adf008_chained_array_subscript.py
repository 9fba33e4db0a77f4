"""ADF008 chained-array-subscript: an array type written `T[N][M]`, not `T[N, M]`

## What it does
Flags a region or kernel parameter annotated with chained subscripts, `float32[N][1]` (also
inside a string annotation, or before a layout `@ [...]`). Only a stream array is written that
way (`Stream[T, 4][P]`), and streams are declared in the region's body, not as parameters.

## Why is this bad?
Allo writes an array's dimensions in one subscript, `T[d0, d1]`. `T[N]` is already an array
type, and `T[N][1]` is no type at all: Python stops when it defines the function
(`'TypeAnnotation' object is not subscriptable`; on older builds, where `T[N]` is None,
`'NoneType' object is not subscriptable`), and Allo's type inference accepts a chained
subscript only on a stream (an `AssertionError` without a message otherwise).

## Example
```python
def top(A: float32[N], B: float32[N][1]):
```
Use instead:
```python
def top(A: float32[N], B: float32[N, 1]):
```
"""

import ast

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR
_MAX_ANNOTATION = 2000  # characters: longer annotations are not parsed again here


def check(ctx: Context):
    for region in ctx.model.regions:
        params = [(p, f"region '{region.name}'", True) for p in region.params]
        params += [(kp, f"kernel '{k.name}'", False) for k in region.kernels for kp in k.params]
        for param, owner, evaluated in params:
            found = _chained(param.annotation) if param.annotation_range is not None else None
            if found is None:
                continue
            base, dims, string = found
            # Python evaluates a region's annotations when it defines it; a kernel's body, and
            # so its kernels, never runs as Python: only Allo reads those.
            stops = (
                f"Python stops when it defines '{region.name}' ('TypeAnnotation' object is not subscriptable)"
                if evaluated and not string
                else "Allo's type inference stops on it (an AssertionError without a message)"
            )
            yield Finding(
                param.annotation_range,
                f"'{param.name}: {param.annotation}' of {owner} is not an Allo type: an array's "
                f"dimensions go in one subscript, {base}[{', '.join(dims)}]. {stops}.",
                {"param": param.name},
            )


def _chained(annotation: str) -> tuple[str, list[str], bool] | None:
    """The element type and every dimension of a chained subscript `T[a][b]`, and whether it is
    written in a string; None for any other annotation (a stream's `Stream[T, d][P]` included)."""
    node = _parse(annotation)
    string = isinstance(node, ast.Constant) and isinstance(node.value, str)
    if string:
        node = _parse(node.value)  # Allo parses a string annotation's text
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        node = node.left  # a layout or memory refinement: `T[M] @ [S(0), R]`
    dims: list[str] = []
    levels = 0
    while isinstance(node, ast.Subscript):
        index = node.slice
        dims[:0] = [ast.unparse(e) for e in index.elts] if isinstance(index, ast.Tuple) else [ast.unparse(index)]
        node, levels = node.value, levels + 1
    if node is None or levels < 2 or ast.unparse(node).rsplit(".", 1)[-1] == "Stream":
        return None
    return ast.unparse(node), dims, string


def _parse(text: str) -> ast.expr | None:
    if len(text) > _MAX_ANNOTATION:
        return None
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
