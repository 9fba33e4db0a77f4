"""The semantic model, checked through what `allo-lsp check` prints for small programs."""

from pathlib import Path
from textwrap import dedent

from allo_lsp.analysis import analyze
from allo_lsp.check import region_json

HEADER = """\
import allo
from allo.ir.types import int32, float32, int16, UInt, Fixed, Stream, ConstExpr
import allo.dataflow as df
import numpy as np
"""


def regions(src: str) -> list[dict]:
    return [region_json(r) for r in analyze(HEADER + dedent(src)).model.regions]


def signature(src: str, index: int = 0) -> list[tuple]:
    """(name, resolved type, MLIR type, bundle, direction) per top argument."""
    region = regions(src)[index]
    return [(a["name"], a["type"], a["mlir_type"], a["bundle"], a["direction"]) for a in region["top_signature"]]


def codes(src: str) -> list[str]:
    return [p.code for p in analyze(HEADER + dedent(src)).problems]


def test_constants_from_enclosing_function_and_arithmetic():
    src = """
    def test_x():
        M, N = 16, 8
        Ty = float32
        P0 = M + 2

        @df.region()
        def top(A: Ty[M, N], B: Ty[P0 * 2, N // 4]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(local_A: Ty[M, N], local_B: Ty[P0 * 2, N // 4]):
                local_B[0, 0] = local_A[0, 0]
    """
    assert signature(src) == [
        ("A", "float32[16, 8]", "memref<16x8xf32>", "gmem0", "in"),
        ("B", "float32[36, 2]", "memref<36x2xf32>", "gmem1", "out"),
    ]


def test_globals_closures_and_later_reassignment():
    src = """
    M = 4

    def outer():
        N = 2 ** 3

        def inner():
            @df.region()
            def top(A: int32[M, N]):
                @df.kernel(mapping=[1], args=[A])
                def k(local_A: int32[M, N]):
                    local_A[0, 0] += 1
            return top
        return inner

    M = 99
    """
    # The module-level `M = 99` comes after the region: Allo read `M = 4` when the region was defined.
    assert signature(src) == [("A", "int32[4, 8]", "memref<4x8xi32>", "gmem0", "inout")]


def test_string_annotations_constructors_and_layouts():
    src = """
    B, M = 2, 4
    S = df.Layout.Shard
    R = df.Layout.Replicate

    @df.region()
    def top(A: "UInt(B * 8)[M]", F: Fixed(12, 4)[M], L: int32[M, M] @ [S(0), R]):
        @df.kernel(mapping=[2], args=[A, F, L])
        def k(local_A: "UInt(B * 8)[M]", local_F: Fixed(12, 4)[M], local_L: int32[M, M] @ [S(0), R]):
            local_L[0, 0] = local_A[0] + local_F[0]
    """
    assert signature(src) == [
        ("A", "UInt(16)[4]", "memref<4xi16>", "gmem0", "in"),
        ("F", "Fixed(12, 4)[4]", "memref<4x!allo.Fixed<12, 4>>", "gmem1", "in"),
        ("L", "int32[4, 4] @ [S(0), R]", "memref<4x4xi32>", "gmem2", "out"),
    ]


def test_unresolvable_dimensions_stay_symbolic_and_raise_nothing():
    src = """
    def test_param(M):
        @df.region()
        def top(A: int32[M]):
            @df.kernel(mapping=[1], args=[A])
            def k(local_A: int32[M + 1]):
                local_A[0] = 1
    """
    assert signature(src) == [("A", "int32[?]", "memref<?xi32>", "gmem0", "out")]
    assert codes(src) == []  # unknown shapes are not compared


def test_kernels_instances_pe_counts_and_streams():
    src = """
    P0, P1 = 2, 3

    @df.region()
    def top(A: int32[4], B: int32[4]):
        fifo: Stream[int16[2, 2], 4][P0, P1]

        @df.kernel(mapping=[P0, P1], args=[A])
        def gemm(local_A: int32[4]):
            i, j = df.get_pid()
            fifo[i, j].put(local_A[0])

        @df.kernel(mapping=[1], args=[B])
        def sink(local_B: int32[4]):
            local_B[0] = fifo[0, 0].get()
    """
    (region,) = regions(src)
    assert region["pe_count"] == 7
    assert region["kernels"][0]["instances"] == ["gemm_0_0", "gemm_0_1", "gemm_0_2", "gemm_1_0", "gemm_1_1", "gemm_1_2"]
    assert region["kernels"][1]["instances"] == ["sink_0"]
    assert region["streams"] == [
        {"name": "fifo", "type": "Stream[int16[2, 2], 4][2, 3]", "put_by": ["gemm"], "got_by": ["sink"]}
    ]


def test_directions_follow_hierarchical_calls_and_helpers():
    src = """
    @df.region()
    def inner(X: int32[8], Y: int32[8]):
        @df.kernel(mapping=[1], args=[X, Y])
        def copy(local_X: int32[8], local_Y: int32[8]):
            for i in range(8):
                local_Y[i] = local_X[i]

    def fill(buf, value):
        buf[0] = value

    @df.region()
    def top(A: int32[8], B: int32[8], C: int32[8], D: int32[1]):
        @df.kernel(mapping=[1], args=[A, B, C, D])
        def k(local_A: int32[8], local_B: int32[8], local_C: int32[8], local_D: int32[1]):
            inner(local_A, local_B)
            fill(local_C, local_D[0])
    """
    assert [s[4] for s in signature(src, 1)] == ["in", "out", "out", "in"]


def test_legacy_order_merges_local_names():
    src = """
    @df.region()
    def top(n: int32[1], A: int32[4], B: int32[4]):
        @df.kernel(mapping=[1], args=[n, A])
        def load(x: int32[1], local_A: int32[4]):
            local_A[0] = x[0]

        @df.kernel(mapping=[1], args=[B])
        def store(x: int32[4]):
            x[0] = 1
    """
    (region,) = regions(src)
    assert region["legacy_order"] == ["n", "A"]  # B merged into n's argument through `x`
    assert codes(src) == ["ADF004"]


def test_built_module_calls_link_to_the_region_in_their_scope():
    src = """
    def test_a():
        @df.region()
        def top(A: int32[4], B: int32[4]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(local_A: int32[4], local_B: int32[4]):
                local_B[0] = local_A[0]

        mod = df.build(top, target="simulator")
        mod(A, B)

    def test_b():
        @df.region()
        def top(A: int32[4]):
            @df.kernel(mapping=[1], args=[A])
            def k(local_A: int32[4]):
                local_A[0] = 1

        mod = df.build(top, target="simulator")
        mod(A, B)
    """
    model = analyze(HEADER + dedent(src)).model
    assert [(c.module, len(c.region.params)) for c in model.calls] == [("mod", 2), ("mod", 1)]
    assert codes(src) == ["ADF060"]


def test_half_typed_region_gives_a_partial_model():
    src = """
    @df.region()
    def top(A: int32[4], B: int32[
    """
    analysis = analyze(HEADER + dedent(src))
    assert [p.code for p in analysis.problems] == ["ADF900"]
    assert analysis.problems[0].message.startswith("syntax error: ")


def test_syntax_error_inside_a_kernel_keeps_the_rest_analysed():
    src = """
    @df.region()
    def top(A: int32[4], n: int32):
        @df.kernel(mapping=[1], args=[A]
        def k(local_A: int32[4]):
            local_A[0] = 1

    @df.region()
    def other(x: int32):
        pass
    """
    analysis = analyze(HEADER + dedent(src))
    found = [(p.code, p.range.start.line) for p in analysis.problems]
    assert ("ADF900", 7) in found  # the unclosed `@df.kernel(` line
    assert [r.name for r in analysis.model.regions] == ["top", "other"]
    assert ("ADF001", 12) in found  # still reported after the error


def test_generic_regions_meta_for_and_reused_buffers_are_clean():
    path = Path(__file__).parent / "fixtures" / "generic_and_meta.py"
    analysis = analyze(path.read_text())
    assert analysis.problems == []
    inner, top, chain = analysis.model.regions
    assert inner.generic_params == ["P0", "P1"]
    assert inner.pe_count is None  # P0 x P1 is only known per instantiation
    assert [p.direction.value for p in top.params] == ["in", "in", "out"]  # through inner[2, 2](...)
    assert chain.pe_count == 6


def test_hostile_input_never_raises():
    """Regressions found by mutating the examples: each once escaped `analyze` or hung libcst."""
    cases = [
        HEADER + 'S = "a\x00b"\n@df.region()\ndef top(A: "int32\x00[4]"):\n    pass\n',  # NUL in literals
        "x = " + "(" * 5000 + ")" * 5000,  # libcst's native parser overflows its stack
        "x = (\n" * 160,  # deep nesting over many lines
        "x = " + "1+" * 300000 + "1",  # quadratic in libcst (and past the size bound: ADF901)
        "M = 9 ** 9 ** 9\n@df.region()\ndef top(A: int32[M << 10 ** 9]):\n    pass\n",
    ]
    for text in cases:
        analysis = analyze(text)
        assert all(p.code in ("ADF900", "ADF901", "ADF001", "ADF006") for p in analysis.problems)


def test_json_types_of_scalars_and_generic_regions():
    src = """
    from allo.ir.types import bool

    @df.region()
    def inner[P0, P1](A: float32[P0, P1], n: int32, flag: bool):
        @df.kernel(mapping=[P0, P1], args=[A])
        def tile(local_A: float32[P0, P1]):
            local_A[0, 0] = n if flag else 0
    """
    assert signature(src) == [
        ("A", "float32[P0, P1]", "memref<P0xP1xf32>", "gmem0", "out"),
        ("n", "int32", "memref<i32>", None, "in"),
        ("flag", "bool", "memref<i1>", None, "in"),
    ]
