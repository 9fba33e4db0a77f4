import pytest
from allo_lsp.analysis import Options, analyze
from allo_lsp.ide.hover import hover
from cursor import split_cursor

DESIGN = """
M = 8

@df.region()
def t$1op(A: int32[M], n: int32[1], B: int32[M]):
    pi$2pe: Stream[int32, 4]

    @df.kernel(mapping=[2], args=[A, $3n])
    def pro$4ducer(local_A: int32[M], local_n: int32[1]):
        i = df.get_pid()
        pipe.put(local_A[i] + local_n[0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        for i in range(2):
            local_B[i] = pi$5pe.get()

mod = df.build(top, target="simulator")
m$6od(A0, n0, B0)
"""


def check_hover(marker: str, expected: str, options: Options = Options()) -> None:
    src = DESIGN
    for other in "123456":
        if other != marker:
            src = src.replace(f"${other}", "")
    text, pos = split_cursor(src.replace(f"${marker}", "$0"))
    result = hover(analyze(text, options), pos)
    assert result is not None
    assert result.markdown == expected


def test_region():
    check_hover(
        "1",
        """\
**region `top`** · 2 kernels · 3 PEs

Compiled top function (declaration order, fixed Allo builds):

| # | parameter | Allo type | MLIR type | interface | direction | kernels |
|---|---|---|---|---|---|---|
| 1 | `A` | `int32[8]` | `memref<8xi32>` | m_axi `gmem0` | in | producer |
| 2 | `n` | `int32[1]` | `memref<1xi32>` | m_axi `gmem1` | in | producer |
| 3 | `B` | `int32[8]` | `memref<8xi32>` | m_axi `gmem2` | out | consumer |

```python
mod(A, n, B)
```""",
    )


def test_stream_declaration_and_use():
    expected = """\
**stream `pipe`**: element `int32` · depth 4 · `!allo.stream<i32, 4>`

put by: producer  
got by: consumer"""  # noqa: W291 - a markdown line break
    check_hover("2", expected)
    check_hover("5", expected)


def test_name_in_args():
    check_hover("3", "region parameter `n`, #2 of `top(A, n, B)`: `int32[1]` (`memref<1xi32>`, m_axi `gmem1`), in")


def test_kernel():
    check_hover(
        "4",
        """\
**kernel `producer`** in region `top` · mapping `[2]` · 2 PEs

PEs: `producer_0`, `producer_1`

| parameter | type | bound to | access |
|---|---|---|---|
| `local_A` | `int32[8]` | `local_A <- A`, #1 | read |
| `local_n` | `int32[1]` | `local_n <- n`, #2 | read |""",
    )


def test_call_of_built_module():
    check_hover(
        "6",
        """\
**`mod`** is `top` built with target `simulator`; arguments in declaration order:

| # | parameter | type | receives |
|---|---|---|---|
| 1 | `A` | `int32[8]` | `A0` |
| 2 | `n` | `int32[1]` | `n0` |
| 3 | `B` | `int32[8]` | `B0` |""",
    )


def test_nothing_outside_regions():
    text, pos = split_cursor("x = 1$0\n")
    assert hover(analyze(text), pos) is None


def _region_hover(source: str) -> str:
    text, pos = split_cursor(source)
    result = hover(analyze(text), pos)
    assert result is not None
    return result.markdown


def test_bare_scalar_parameters_are_0d_memrefs():
    markdown = _region_hover("""
@df.region()
def to$0p(A: int32[4], n: int32, flag: bool):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[4]):
        local_A[0] = n if flag else 0
""")
    assert "| 2 | `n` | `int32` | `memref<i32>` |" in markdown
    assert "| 3 | `flag` | `bool` | `memref<i1>` |" in markdown


def test_generic_region_shows_symbolic_shapes():
    markdown = _region_hover("""
@df.region()
def inn$0er[P0, P1](A: float32[P0, P1], B: float32[P0 * 2]):
    @df.kernel(mapping=[P0, P1], args=[A, B])
    def gemm(local_A: float32[P0, P1], local_B: float32[P0 * 2]):
        pass
""")
    assert "| 1 | `A` | `float32[P0, P1]` | `memref<P0xP1xf32>` |" in markdown
    assert "| 2 | `B` | `float32[?]` | `memref<?xf32>` |" in markdown


TYPED = """
from allo.ir.types import int8, int32, uint8

M = 8

@df.region()
def top(A: int8[M], B: int8[M], C: int32[M]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def k(a: int8[M], b: int8[M], c: int32[M]):
        for i in range(M):
            c[i] = a[i] $1* b[i]
            d: uint8 = 3
            c[i] = d $2- d
            c[i] = a[$3i]
"""


def typed_hover(marker: str) -> str:
    src = TYPED
    for other in "123":
        if other != marker:
            src = src.replace(f"${other}", "")
    text, pos = split_cursor(src.replace(f"${marker}", "$0"))
    result = hover(analyze(text), pos)
    assert result is not None
    return result.markdown


def test_expression_shows_its_allo_type():
    # `mul_rule`: int8 * int8 is Int(16), which Allo's messages print as i16.
    assert typed_hover("1") == "Allo type `Int(16)` (Allo prints `i16`)"


def test_unsigned_difference_is_one_bit_wider_and_signed():
    assert typed_hover("2") == "Allo type `UInt(9)` (Allo prints `ui9`)"  # `add_sub_rule` on two uint8


def test_loop_variable_is_an_index():
    assert typed_hover("3") == "Allo type `index`"


METHODS = """
from allo.ir.types import int8, int16, float32

@df.region()
def top(A: int8[4], H: int16[4], F: float32[4]):
    @df.kernel(mapping=[1], args=[A, H, F])
    def k(a: int8[4], h: int16[4], f: float32[4]):
        x = (a[0] + a[1]).rev$1erse()
        y = h[0].bit$2cast()
        z = f[0].bit$3cast()
"""


@pytest.mark.parametrize(
    ("marker", "expected"),
    [
        ("1", "Allo type `Int(9)` (Allo prints `i9`)"),  # `.reverse()` keeps its operand's type
        ("2", "Allo type `float16` (Allo prints `f16`)"),  # an Int(16)'s bits as a float16
        ("3", "Allo type `UInt(32)` (Allo prints `ui32`)"),  # a float32's bits as a UInt(32)
    ],
)
def test_a_value_methods_call_shows_its_allo_type(marker, expected):
    src = METHODS
    for other in "123":
        if other != marker:
            src = src.replace(f"${other}", "")
    text, pos = split_cursor(src.replace(f"${marker}", "$0"))
    result = hover(analyze(text), pos)
    assert result is not None and result.markdown == expected
