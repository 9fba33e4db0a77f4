"""A stream value stored as another type (issue 27 point 3): the problems `kernel_types` records
where Allo a098603f's MLIR verifier refuses the store Allo writes, and none where Allo converts.

Allo's builder casts no stream get (`build_assign_stmt` skips a `StreamGetOp`); its simulator
converts a put's value only between integers (`_process_function_streams`)."""

import ast
import textwrap

from allo_lsp.protocol.kernel_model import VERIFIER, Environment, Value
from allo_lsp.protocol.kernel_types import KernelTypes
from allo_lsp.protocol.typing_rules import BFLOAT16, FLOAT32, INT32, Int, UInt

_NAMES = {"int16": Int(16), "int32": INT32, "uint32": UInt(32), "float32": FLOAT32}
_STREAMS = {"s": Value(INT32), "f": Value(FLOAT32), "h": Value(BFLOAT16), "blocks": Value(INT32, (4,))}


def _annotation(node: ast.expr) -> Value | None:
    if isinstance(node, ast.Name):
        return Value(_NAMES[node.id]) if node.id in _NAMES else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return Value(_NAMES[node.value.id], (node.slice.value,))
    return None


def problems(body: str) -> list[tuple[int, str, str, str]]:
    """(line in `body`, the node, the pipeline, the store) of each problem of a kernel of `body`."""
    source = "def k(b: int16[8], c: int32[8], u: uint32[8], g: float32[8]):\n" + textwrap.indent(
        textwrap.dedent(body).lstrip("\n"), "    "
    )
    fn = ast.parse(source).body[0]
    params = {a.arg: _annotation(a.annotation) for a in fn.args.args}
    env = Environment(params=params, constants={"N": 8}, streams=_STREAMS, annotation=_annotation)
    store = {message: name for name, message in VERIFIER.items()}
    return [
        (p.node.lineno - 1, ast.unparse(p.node), p.pipeline, store[p.message]) for p in KernelTypes(fn, env).problems
    ]


def test_a_get_stored_as_another_mlir_type_is_a_store_the_build_refuses():
    assert problems(
        """
        x: int16 = s.get()
        y: int32 = 0
        y = f.get()
        for i in range(8):
            b[i] = s.get()
            b[i + N - 1] = s.get()
            k = 7 - i
            b[k] = s.get()
            c[i] = f.get()
        """
    ) == [
        (1, "x", "build", "affine.store"),
        (3, "y", "build", "affine.store"),
        (5, "b[i]", "build", "affine.store"),
        (6, "b[i + N - 1]", "build", "affine.store"),
        (8, "b[k]", "build", "memref.store"),
        (9, "c[i]", "build", "affine.store"),
    ]


def test_a_get_stored_as_its_own_mlir_type_is_no_problem():
    # Int and UInt of one width are both `iN`; an untyped local takes the stream's type; an
    # assignment of a local is cast; a bit set and a block stream are not followed.
    assert (
        problems(
            """
        x: int32 = s.get()
        z = s.get()
        w: int16 = z
        for i in range(8):
            u[i] = s.get()
            c[i] = s.get() + 1
            b[i] = w
            x[0] = s.get()
            v: int32[4] = blocks.get()
        """
        )
        == []
    )


def test_a_put_the_simulator_does_not_convert_is_a_store_its_lowering_refuses():
    assert problems(
        """
        for i in range(8):
            s.put(g[i])
            s.put(i)
            s.put(1.5)
            f.put(b[i])
            f.put(0)
            h.put(g[i])
        """
    ) == [
        (2, "g[i]", "simulator", "memref.store"),
        (3, "i", "simulator", "memref.store"),
        (4, "1.5", "simulator", "memref.store"),
        (5, "b[i]", "simulator", "memref.store"),
        (6, "0", "simulator", "memref.store"),
        (7, "g[i]", "simulator", "memref.store"),
    ]


def test_a_put_the_simulator_converts_or_builds_as_an_integer_is_no_problem():
    # Integers of another width are truncated or zero-extended (ADF090); a comparison is built
    # as i1; get_pid() values and unrolled meta_for variables are Python ints (i32 constants).
    assert (
        problems(
            """
        p = df.get_pid()
        for i in range(8):
            s.put(b[i])
            s.put(u[i])
            s.put(g[i] < 1.0)
            f.put(g[i])
        s.put(p)
        with allo.meta_for(8) as j:
            s.put(j)
        """
        )
        == []
    )
