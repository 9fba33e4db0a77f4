"""The compiled module against the region: kernels by PE name, the top signature by type."""

import pytest
from allo_lsp.mlir import Mismatch, compare_signature, kernel_of, parse_functions
from allo_lsp.mlir.functions import CompiledFunction, ParsedModule
from conftest import fixture, region_of

PRODUCER_CONSUMER = """\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df

M, N = 16, 16


@df.region()
def top(A: int32[M, N], B: int32[M, N], n: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A, n])
    def producer(local_A: int32[M, N], local_n: int32[1]):
        for i, j in allo.grid(M, N):
            pipe.put(local_A[i, j] + local_n[0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M, N]):
        for i, j in allo.grid(M, N):
            local_B[i, j] = pipe.get()
"""

ARG_ORDER = """\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df

N = 16


@df.region()
def top(arr_in: int32[N], arr_out: int32[N], n: int32[1]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[arr_in, n])
    def producer(local_in: int32[N], local_n: int32[1]):
        for i in range(N):
            pipe.put(local_in[i] * local_n[0])

    @df.kernel(mapping=[1], args=[arr_out])
    def consumer(local_out: int32[N]):
        for i in range(N):
            local_out[i] = pipe.get()
"""

CONVOLUTIONS = """\
import allo
from allo.ir.types import float32
import allo.dataflow as df


@df.region()
def layers(X: float32[8, 8]):
    @df.kernel(mapping=[1, 2], args=[])
    def conv_2d():
        pass

    @df.kernel(mapping=[2, 2], args=[])
    def conv():
        pass

    @df.kernel(mapping=[2, 3], args=[])
    def gemm():
        pass

    @df.kernel(mapping=[3], args=[])
    def stage_1():
        pass
"""


def test_kernel_of_matches_real_pe_names():
    region = region_of(CONVOLUTIONS)
    assert kernel_of("conv_2d_0_1", region) == ("conv_2d", (0, 1))
    assert kernel_of("conv_1_1", region) == ("conv", (1, 1))
    assert kernel_of("gemm_1_2", region) == ("gemm", (1, 2))
    assert kernel_of("stage_1_2", region) == ("stage_1", (2,))
    assert kernel_of("stage_1", region) is None  # the kernel itself, not a PE
    assert kernel_of("conv_2d_1_0", region) is None  # conv_2d has one row of PEs
    assert kernel_of("gemm_2_0", region) is None
    assert kernel_of("layers", region) is None


def test_kernel_of_every_function_of_a_module(mlir_bindings):
    parsed = parse_functions(fixture("producer_consumer_fixed.mlir"))
    region = region_of(PRODUCER_CONSUMER)
    assert [kernel_of(f.name, region) for f in parsed.functions if f.kernel] == [
        ("producer", (0,)),
        ("consumer", (0,)),
    ]


def test_fixed_build_matches_the_declaration(mlir_bindings):
    parsed = parse_functions(fixture("producer_consumer_fixed.mlir"))
    assert compare_signature(parsed, region_of(PRODUCER_CONSUMER)) is None


def test_legacy_build_names_both_orders(mlir_bindings):
    mismatch = compare_signature(parse_functions(fixture("arg_order_legacy.mlir")), region_of(ARG_ORDER))
    assert mismatch == Mismatch(
        "The compiled top function takes top(arr_in: memref<16xi32>, n: memref<1xi32>, "
        "arr_out: memref<16xi32>) but the region declares top(arr_in, arr_out, n): this Allo build "
        "orders arguments by kernel appearance (an older build); call mod(arr_in, n, arr_out) or "
        "upgrade Allo.",
        function="top",
        compiled=("memref<16xi32>", "memref<1xi32>", "memref<16xi32>"),
        declared=("memref<16xi32>", "memref<16xi32>", "memref<1xi32>"),
        legacy_order=True,
    )


def module(*args: str, name: str = "top") -> ParsedModule:
    return ParsedModule((CompiledFunction(name, args, dataflow=True),))


def test_unexplained_order_is_said_with_positions_when_types_are_ambiguous():
    region = region_of(ARG_ORDER)
    mismatch = compare_signature(module("memref<1xi32>", "memref<16xi32>", "memref<16xi32>"), region)
    assert not mismatch.legacy_order
    assert mismatch.message == (
        "The compiled top function takes top(n: memref<1xi32>, #2 (arr_in or arr_out): memref<16xi32>, "
        "#3 (arr_in or arr_out): memref<16xi32>) but the region declares top(arr_in: memref<16xi32>, "
        "arr_out: memref<16xi32>, n: memref<1xi32>): the same types in an order that is neither the "
        "declaration nor the kernel-appearance order. Was the MLIR compiled from another "
        "version of this file?"
    )


def test_count_and_type_differences():
    region = region_of(ARG_ORDER)
    fewer = compare_signature(module("memref<16xi32>", "memref<16xi32>"), region)
    assert ": 2 arguments where the region declares 3." in fewer.message
    other = compare_signature(module("memref<16xi32>", "memref<8xf32>", "memref<1xi32>"), region)
    assert "#2 (no parameter of this type): memref<8xf32>" in other.message
    assert "argument 2 is memref<8xf32> where the region declares arr_out: memref<16xi32>" in other.message


def test_top_found_by_dataflow_attribute_or_reported_missing():
    region = region_of(ARG_ORDER)
    renamed = module("memref<16xi32>", "memref<16xi32>", "memref<1xi32>", name="top_renamed")
    assert compare_signature(renamed, region) is None
    kernels_only = ParsedModule((CompiledFunction("producer_0", ("memref<16xi32>",), kernel=True),))
    missing = compare_signature(kernels_only, region)
    assert missing.function is None
    assert missing.message.startswith("The compiled module has no top function '@top'")


def test_unreadable_module_is_not_called_equal():
    error = "The MLIR does not parse: 3:7: expected ')'"
    mismatch = compare_signature(ParsedModule(error=error), region_of(ARG_ORDER))
    assert mismatch.message == f"Cannot compare with the compiled module: {error}"


UNRESOLVED_DIMS = """\
import allo
from allo.ir.types import int32
import allo.dataflow as df


@df.region()
def top(A: int32[P, Q, R, S, T, U, V, W], B: int32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def k(a: int32[P, Q, R, S, T, U, V, W], b: int32[4]):
        pass
"""


@pytest.mark.timeout(2)
def test_unresolved_dimensions_are_compared_in_linear_time():
    """Eight `?` dimensions against a 48-dimension argument: the old `.+` per `?` backtracked as a
    power of their number (about 7 s a comparison, and a mismatch makes several)."""
    region = region_of(UNRESOLVED_DIMS)
    assert region.params[0].type.mlir == "memref<?x?x?x?x?x?x?x?xi32>"
    assert compare_signature(module("memref<2x3x4x5x6x7x8x9xi32>", "memref<4xi32>"), region) is None
    mismatch = compare_signature(module("memref<" + "1x" * 48 + "f32>", "memref<4xi32>"), region)
    assert "#1 (no parameter of this type)" in mismatch.message
