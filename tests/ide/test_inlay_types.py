"""Inlay hints of the types Allo gives the untyped locals of a kernel (issue 27.5)."""

from allo_lsp.analysis import analyze
from allo_lsp.ide.inlay_hints import inlay_hints

DESIGN = """
from allo.ir.types import int8, int32

M = 8

@df.region()
def top(A: int8[M], C: int32[M]):
    @df.kernel(mapping=[1], args=[A, C])
    def k(a: int8[M], c: int32[M]):
        acc = 0
        for i in range(M):
            x = a[i]
            y = x * x
            x = x + 1
            s: int32 = y
            acc = acc + s
        c[0] = acc
"""


def type_hints(text: str) -> list[tuple[int, int, str]]:
    return [
        (h.position.line, h.position.column, h.label) for h in inlay_hints(analyze(text)) if h.label.startswith(": ")
    ]


def test_each_untyped_local_gets_its_type_at_its_first_binding():
    assert type_hints(DESIGN) == [
        (9, 11, ": Int(32)"),  # `acc = 0`: an int literal is int32
        (11, 13, ": Int(8)"),  # `x = a[i]`: the element type of `a`
        (12, 13, ": Int(16)"),  # `x * x` of two int8 (`mul_rule`)
    ]


def test_a_half_typed_kernel_gives_no_type_hint_and_no_error():
    text = DESIGN.replace("y = x * x", "y = x * (")
    assert all(label != ": Int(16)" for _, _, label in type_hints(text))
