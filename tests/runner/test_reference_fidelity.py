"""The reference executor runs what Allo runs, as Allo runs it (issue 14): meta chains, build
checks, bit access, row-major addressing, plain kernels, the older region forms, stateful locals
and non-blocking streams. Every design here is small and written in the style of Allo's tests."""

import numpy as np
import pytest
from allo_lsp.runner.reference import Unsupported

from tests.runner.reference_harness import load, run, shim

# -- 1. meta chains: every branch of every chain is taken where Allo takes it -------------------
#
# Wrong-answer guards: each branch writes its own code into the PE's cell, so dropping any branch,
# or pairing a meta_else with the wrong meta_if, changes the expected grid.

CHAIN_SPLIT_AND_NESTED = """
@df.region()
def top(C: int32[3, 3]):
    @df.kernel(mapping=[3, 3], args=[C])
    def grid(local_C: int32[3, 3]):
        i, j = df.get_pid()
        with allo.meta_if(i == 0 and j == 0):
            local_C[i, j] = 1
        tag: int32 = 10                     # a statement between: the chain goes on
        with allo.meta_else():
            with allo.meta_if(i == 0):
                local_C[i, j] = tag + 2
            with allo.meta_else():
                local_C[i, j] = tag + 3
        with allo.meta_if(j == 2):          # a second chain, with its own meta_else
            local_C[i, j] += 100
        with allo.meta_else():
            local_C[i, j] += 200
"""


def test_a_meta_else_after_a_statement_and_a_second_meta_else_are_both_taken(tmp_path):
    C = np.zeros((3, 3), np.int32)
    run(tmp_path, CHAIN_SPLIT_AND_NESTED, C)
    inner = np.array([[1, 12, 12], [13, 13, 13], [13, 13, 13]])
    outer = np.array([[200, 200, 100]] * 3)
    np.testing.assert_array_equal(C, inner + outer)


def test_meta_elif_chains_resolve_per_pe_over_the_whole_grid(tmp_path):
    source = """
    @df.region()
    def top(C: int32[4, 4]):
        @df.kernel(mapping=[4, 4], args=[C])
        def grid(local_C: int32[4, 4]):
            i, j = df.get_pid()
            with allo.meta_if(i in {0, 3} and j in {0, 3}):
                local_C[i, j] = 1
            with allo.meta_elif(j == 0):
                local_C[i, j] = 2
            with allo.meta_elif(i == 0):
                local_C[i, j] = 3
            with allo.meta_elif(i == 3):
                local_C[i, j] = 4
            with allo.meta_else():
                with allo.meta_if(j == 3):
                    local_C[i, j] = 5
                with allo.meta_elif(i == j):
                    local_C[i, j] = 6
                with allo.meta_else():
                    local_C[i, j] = 7
    """
    C = np.zeros((4, 4), np.int32)
    run(tmp_path, source, C)
    np.testing.assert_array_equal(C, [[1, 3, 3, 1], [2, 6, 7, 5], [2, 7, 6, 5], [1, 4, 4, 1]])


@pytest.mark.parametrize(
    "body, message",
    [
        (
            """
            with allo.meta_if(i == 0):
                local_C[i] = 1
            with allo.meta_else():
                local_C[i] = 2
            with allo.meta_elif(i == 1):
                local_C[i] = 3
    """,
            "Unmatched allo.meta_elif()",
        ),
        (
            """
            with allo.meta_else():
                local_C[i] = 2
    """,
            "Unmatched allo.meta_else()",
        ),
    ],
)
def test_an_unmatched_meta_branch_is_allos_build_error(tmp_path, capsys, body, message):
    source = (
        """
    @df.region()
    def top(C: int32[2]):
        @df.kernel(mapping=[2], args=[C])
        def k(local_C: int32[2]):
            i = df.get_pid()"""
        + body
    )
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert message in capsys.readouterr().out


# Allo unrolls an allo.meta_for (infer.py visits its body once per iteration): the branches of
# its body pair once per iteration, each copy with whatever chain is open then.


def test_a_meta_else_in_an_unrolled_loop_is_unmatched_in_its_second_iteration(tmp_path, capsys):
    source = """
    @df.region()
    def top(C: int32[2]):
        @df.kernel(mapping=[2], args=[C])
        def k(local_C: int32[2]):
            i = df.get_pid()
            with allo.meta_if(i == 0):
                local_C[i] = 1
            with allo.meta_for(2) as r:
                with allo.meta_else():
                    local_C[i] = 2 + r
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert "Unmatched allo.meta_else()" in capsys.readouterr().out


UNROLLED_CHAINS = """
@df.region()
def top(C: int32[4], D: int32[4]):
    @df.kernel(mapping=[4], args=[C, D])
    def k(local_C: int32[4], local_D: int32[4]):
        i = df.get_pid()
        with allo.meta_if(i == 0):
            local_C[i] = 1
        with allo.meta_for(1, 3) as r:       # continues the chain: the first copy whose r == i
            with allo.meta_elif(i == r):
                local_C[i] = 10 * r
        with allo.meta_else():
            local_C[i] = 7
        with allo.meta_for(3) as r:          # each copy opens a chain; the last one (r == 2) stays open
            with allo.meta_if(i == r):
                local_D[i] += 100 * (r + 1)
        with allo.meta_else():               # pairs with the last copy's chain: every PE but i == 2
            local_D[i] += 5
"""


def test_unrolled_meta_for_copies_pair_with_the_chain_open_in_their_iteration(tmp_path):
    C, D = np.zeros(4, np.int32), np.zeros(4, np.int32)
    run(tmp_path, UNROLLED_CHAINS, C, D)
    np.testing.assert_array_equal(C, [1, 10, 20, 7])
    np.testing.assert_array_equal(D, [105, 205, 300, 5])


def test_a_branch_pairing_with_an_earlier_iterations_copy_is_refused_by_name(tmp_path):
    # The second meta_else pairs with the r == 1 copy: one flag per meta_if cannot say it.
    source = """
    @df.region()
    def top(C: int32[4]):
        @df.kernel(mapping=[4], args=[C])
        def k(local_C: int32[4]):
            i = df.get_pid()
            with allo.meta_for(3) as r:
                with allo.meta_if(i == r):
                    local_C[i] += 1
            with allo.meta_else():
                local_C[i] += 2
            with allo.meta_else():
                local_C[i] += 4
    """
    with pytest.raises(Unsupported, match="an earlier allo.meta_for iteration"):
        run(tmp_path, source, np.zeros(4, np.int32))


def test_a_put_of_another_block_shape_is_refused_by_name(tmp_path):
    # Allo's StreamPutOp takes any type; its simulator copies a block put into the FIFO over the
    # value's own shape, and no verifier sees a block of the element's rank and type but another
    # shape: what it holds then is not a value this executor may make up (it was a numpy reshape
    # error, blamed on the user's line). A scalar (another rank) is the verifier's refusal at
    # df.build: test_build_errors.py.
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        s: Stream[int32[4], 2]

        @df.kernel(mapping=[1], args=[A])
        def prod(a: int32[4]):
            s.put(a[0:2])

        @df.kernel(mapping=[1], args=[B])
        def cons(b: int32[4]):
            b[:] = s.get()
    """
    with pytest.raises(Unsupported, match=r"a put of shape \(2,\) into 's', a stream of int32\[4\] blocks"):
        run(tmp_path, source, np.arange(4, dtype=np.int32), np.zeros(4, np.int32))


# -- 8. Allo's build-time checks -------------------------------------------------------------


@pytest.mark.parametrize(
    "region, message",
    [
        (
            """
    @df.region()
    def top(A: int32[4]):
        @df.kernel(args=[A])
        def k(local_A: int32[4]):
            local_A[0] = 1
    """,
            "Invalid @df.kernel decorator on function 'k': missing required 'mapping' parameter.",
        ),
        (
            """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[4], local_B: int32[4]):
            local_B[0] = local_A[0]
    """,
            "Invalid @df.kernel decorator on function 'k': 'args' length mismatch (expected 2, got 1).",
        ),
        (
            """
    @df.region()
    def top(flag: bool, out: int32[1]):
        @df.kernel(mapping=[1], args=[flag, out])
        def gemm(inst: bool, o: int32[1]):
            o[0] = 1
    """,
            "Scalar 'flag' cannot appear in `args=[...]` on @df.kernel 'gemm'. Scalars are captured from the "
            "enclosing region scope automatically; remove it from args, or use a 1-element array (flag: ui1[1]) instead.",
        ),
        (
            """
    @df.region()
    def top(A: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[8]):
            local_A[0] = 1
    """,
            "df.kernel argument local_A do not match A.",
        ),
        (
            """
    @df.region()
    def top(A: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(A: int32[4]):
            A[0] = 1
    """,
            "Argument name 'A' conflicts with an existing symbol. Please choose a different name to avoid the conflict.",
        ),
    ],
)
def test_build_errors_print_allos_message_and_exit_1(tmp_path, capsys, region, message):
    with shim():
        module, _ = load(tmp_path, region)
        for target in ("simulator", "vitis_hls"):
            with pytest.raises(SystemExit) as exited:
                module.df.build(module.top, target=target)
            assert exited.value.code == 1
            assert message in capsys.readouterr().out


# -- 10. integer bit access ------------------------------------------------------------------


def test_bits_get_set_and_add_on_scalars_and_array_elements(tmp_path):
    source = """
    @df.region()
    def top(A: uint32[2], B: int32[8], C: int8[2]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(local_A: uint32[2], local_B: int32[8], local_C: int8[2]):
            local_B[0] = local_A[0][28:32]          # 0xABCD0123 -> 0xA
            local_B[1] = local_A[0][0]
            x: int8 = -1
            local_B[2] = x[7]                       # the sign bit of a signed value
            local_B[3] = x[0:4]
            y: int8 = 0
            y[7] = 1                                # setting the sign bit wraps to -128
            local_B[4] = y
            u: UInt(12) = 0
            u[4:8] = 15
            u[8:12] += 3
            local_B[5] = u
            local_A[1][0:8] = 255                   # bits of an array element, written back
            local_C[0][7] = 1
            local_B[6] = (local_A[1] + 1)[8]
    """
    A = np.array([0xABCD0123, 0x100], np.uint32)
    B, C = np.zeros(8, np.int32), np.zeros(2, np.int8)
    run(tmp_path, source, A, B, C)
    assert B[:7].tolist() == [0xA, 1, 1, 15, -128, 0x3F0, 0]
    assert A[1] == 0x1FF and C[0] == -128


def test_bit_access_on_a_float_is_refused(tmp_path, capsys):
    source = """
    @df.region()
    def top(A: float32[1], B: int32[1]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(local_A: float32[1], local_B: int32[1]):
            local_B[0] = local_A[0][0]
    """
    # Allo's type inference refuses it (`visit_Subscript`): the build fails.
    with pytest.raises(SystemExit):
        run(tmp_path, source, np.ones(1, np.float32), np.zeros(1, np.int32))
    assert "Can only access bit (slice) for integers" in capsys.readouterr().out


# -- 12. row-major addressing ----------------------------------------------------------------


def test_an_index_past_one_dimension_reads_the_row_major_element(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4, 4], B: int32[3]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(local_A: int32[4, 4], local_B: int32[3]):
            local_B[0] = local_A[0, 5]              # offset 5: A[1, 1]
            local_B[1] = local_A[2, -1]             # offset 7: A[1, 3]
            local_A[3, 4 - 8] = 99                  # offset 8: A[2, 0]
    """
    A, B = np.arange(16, dtype=np.int32).reshape(4, 4), np.zeros(3, np.int32)
    run(tmp_path, source, A, B)
    assert B[:2].tolist() == [5, 7] and A[2, 0] == 99


def test_an_index_outside_the_buffer_is_an_error_at_its_line(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4, 4], B: int32[1]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(local_A: int32[4, 4], local_B: int32[1]):
            local_B[0] = local_A[3, 4]
    """
    with pytest.raises(IndexError, match=r"index \(3, 4\) is outside the buffer of shape \(4, 4\)") as caught:
        run(tmp_path, source, np.zeros((4, 4), np.int32), np.zeros(1, np.int32))
    assert caught.value.line == 10


# -- 11. plain kernels, schedules, the allo.* modules ------------------------------------------


def test_customize_build_runs_a_plain_kernel_with_allos_storage(tmp_path):
    source = """
    def saturate(A: int8[4], B: int8[4]) -> int8[4]:
        C: int8[4] = 0
        for i in range(4, name="i"):
            acc: int8 = 0
            for r in allo.reduction(2):
                acc += A[i] * B[i]
            C[i] = acc
        return C

    def golden():
        s = allo.customize(saturate)
        s.partition(s.C, dim=1)
        s.pipeline("i")
        s.unroll("r")
        return s.build()(np.array([100, 2, -3, 4], np.int8), np.array([1, 3, 3, 1], np.int8))
    """
    with shim():
        module, _ = load(tmp_path, source)
        out = module.golden()
    assert out.tolist() == [-56, 12, -18, 8]  # 200 wraps in int8, as Allo's llvm build stores it


def test_df_customize_accepts_primitives_and_refuses_to_show_mlir(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(local_A: int32[4], local_B: int32[4]):
            for i in allo.grid(4, name="copy"):
                local_B[i] = local_A[i] + 1
    """
    with shim():
        module, _ = load(tmp_path, source)
        s = module.df.customize(module.top)
        s.partition("top:A", dim=1, factor=2)
        s.reorder("i", "j")
        B = np.zeros(4, np.int32)
        s.build(target="simulator")(np.arange(4, dtype=np.int32), B)
        with pytest.raises(Unsupported, match="MLIR"):
            _ = s.module
    assert B.tolist() == [1, 2, 3, 4]


def test_the_allo_modules_tests_import_exist_and_a_missing_name_is_unsupported(tmp_path):
    source = """
    from allo.ir.utils import MockBuffer
    from allo.utils import get_np_struct_type
    from allo.backend.aie import is_available
    import allo.dsl as dsl
    import allo.passes

    BUF = MockBuffer("top", "A")
    WIDE = get_np_struct_type(24)
    ROWS = list(dsl.grid(2, 2))
    """
    with shim():
        module, _ = load(tmp_path, source)
        assert module.WIDE.itemsize == 3 and module.ROWS == [(0, 0), (0, 1), (1, 0), (1, 1)]
        assert module.is_available() is False
        with pytest.raises(Unsupported, match=r"^allo.backend.vliw is not part of the reference executor$"):
            load(tmp_path, "import allo.backend.vliw")
        with pytest.raises(Unsupported, match=r"^allo.nn is not part of the reference executor$"):
            load(tmp_path, "x = allo.nn")


# -- older forms Allo's tests still use --------------------------------------------------------


def test_a_parameterless_region_takes_its_kernels_parameters_by_name(tmp_path):
    # The top function's arguments: kernel parameters in first-appearance order, one per name.
    source = """
    @df.region()
    def top():
        pipe = df.array(df.pipe(dtype=int32, shape=(), depth=2), shape=(2,))
        block = df.pipe(dtype=int32, shape=(2,), depth=1)

        @df.kernel(mapping=[2])
        def first(A: int32[4], x: int32[2]):
            p = df.get_pid()
            pipe[p].put(A[p] * x[p])
            with allo.meta_if(p == 0):
                b: int32[2] = 0
                b[0] = A[2]
                b[1] = A[3]
                block.put(b)

        @df.kernel(mapping=[2])
        def second(x: int32[2], y: int32[4]):
            p = df.get_pid()
            y[p] = pipe[p].get() + x[p]
            with allo.meta_if(p == 1):
                b: int32[2] = block.get()
                y[2] = b[0]
                y[3] = b[1]
    """
    A, x, y = np.array([1, 2, 3, 4], np.int32), np.array([10, 20], np.int32), np.zeros(4, np.int32)
    run(tmp_path, source, A, x, y)
    assert y.tolist() == [20, 60, 3, 4]
    # The job's result says that the older form ran, which current Allo rejects.
    from allo_lsp.runner.reference import emulate

    assert "region 'top' ran in Allo's older form" in emulate.describe()


def test_stateful_arrays_keep_their_contents_across_calls(tmp_path):
    source = """
    from allo.ir.types import Stateful

    @df.region()
    def top(A: int32[2], B: int32[2]):
        @df.kernel(mapping=[1], args=[A, B])
        def acc(local_A: int32[2], local_B: int32[2]):
            total: int32[2] @ Stateful = 0
            for i in range(2):
                total[i] += local_A[i]
                local_B[i] = total[i]

    def twice():
        mod = df.build(top, target="simulator")
        B = np.zeros(2, np.int32)
        mod(np.array([1, 2], np.int32), B)
        mod(np.array([1, 2], np.int32), B)
        return B
    """
    with shim():
        module, _ = load(tmp_path, source)
        assert module.twice().tolist() == [2, 4]


def test_try_put_try_get_and_empty_poll_a_stream(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        req: Stream[int32, 1]

        @df.kernel(mapping=[1], args=[A])
        def sender(local_A: int32[4]):
            for i in range(4):
                sent: int1 = 0
                while sent == 0:
                    sent = req.try_put(local_A[i])

        @df.kernel(mapping=[1], args=[B])
        def receiver(local_B: int32[4]):
            got: int32 = 0
            while got < 4:
                if not req.empty():
                    value, ok = req.try_get()
                    if ok == 1:
                        local_B[got] = value
                        got += 1
    """
    B = np.zeros(4, np.int32)
    run(tmp_path, source, np.array([5, 6, 7, 8], np.int32), B)
    assert B.tolist() == [5, 6, 7, 8]


# -- 9. generic regions on Python 3.12+ --------------------------------------------------------


def test_a_generic_region_runs(tmp_path):
    source = """
    @df.region()
    def inner[P](A: int32[8], B: int32[8]):
        @df.kernel(mapping=[P], args=[A, B])
        def part(local_A: int32[8], local_B: int32[8]):
            p = df.get_pid()
            for i in range(p * (8 // P), (p + 1) * (8 // P)):
                local_B[i] = local_A[i] * P

    @df.region()
    def top(A: int32[8], B: int32[8]):
        @df.kernel(mapping=[1], args=[A, B])
        def wrapper(local_A: int32[8], local_B: int32[8]):
            inner[4](local_A, local_B)
    """
    B = np.zeros(8, np.int32)
    run(tmp_path, source, np.arange(8, dtype=np.int32), B)
    assert B.tolist() == [4 * i for i in range(8)]


def test_integer_arithmetic_is_exact_until_stored_and_bit_methods_know_the_allo_width(tmp_path):
    source = """
    @df.region()
    def top(A: int8[2], B: UInt(5)[2], C: int32[3]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(local_A: int8[2], local_B: UInt(5)[2], local_C: int32[3]):
            local_C[0] = local_A[0] * local_A[1]    # int8 * int8 is not wrapped in int8
            local_C[1] = local_B[0].reverse()       # 5 bits: 0b00011 -> 0b11000
            w: int16 = 0x3C00
            local_C[2] = w.bitcast() * 2            # float16 1.0
    """
    C = np.zeros(3, np.int32)
    run(tmp_path, source, np.array([100, 2], np.int8), np.array([3, 0], np.uint8), C)
    assert C.tolist() == [200, 24, 2]


def test_a_top_named_kernel_is_refused_for_vitis_hls_only(tmp_path, capsys):
    source = """
    @df.region()
    def kernel(A: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[4]):
            local_A[0] = 1
    """
    with shim():
        module, _ = load(tmp_path, source)
        module.df.build(module.kernel, target="vhls")
        with pytest.raises(SystemExit):
            module.df.build(module.kernel, target="vitis_hls")
    assert "kernel is a reserved keyword for vitis_hls" in capsys.readouterr().out


def test_a_stateful_scalar_is_static_across_passes_of_its_declaration(tmp_path):
    source = """
    from allo.ir.types import Stateful

    @df.region()
    def top(A: int32[6], B: int32[2]):
        @df.kernel(mapping=[1], args=[A, B])
        def acc(local_A: int32[6], local_B: int32[2]):
            for m in range(2):
                for k in range(3):
                    c: int32 @ Stateful = 0
                    if k == 0:
                        c = 0
                    c += local_A[m * 3 + k]
                    if k == 2:
                        local_B[m] = c
    """
    B = np.zeros(2, np.int32)
    run(tmp_path, source, np.arange(6, dtype=np.int32), B)
    assert B.tolist() == [3, 12]  # 0+1+2 and 3+4+5: not reset by the declaration, reset by c = 0


def test_meta_chains_and_scalar_top_arguments_with_allos_bool_in_scope(tmp_path):
    # `bool` is Allo's type here (`from allo.ir.types import bool`), and the older API passes a
    # scalar straight to the module: `mod(A, flag, C)`.
    source = """
    from allo.ir.types import bool

    @df.region()
    def top():
        tags = df.array(df.pipe(dtype=bool, shape=(), depth=2), shape=(3,))

        @df.kernel(mapping=[3])
        def chain(A: int32[3], flag: bool, C: int32[3]):
            i = df.get_pid()
            tag: bool = flag  # a name bound inside a meta_if body is not visible after it (Allo)
            with allo.meta_if(i != 0):
                tag = tags[i - 1].get()
            with allo.meta_if(i != 2):
                tags[i].put(tag)
            C[i] = A[i] * 10 if tag else A[i]
    """
    with shim():
        module, _ = load(tmp_path, source)
        mod = module.df.build(module.top, target="simulator")
        for flag, expected in ((True, [10, 20, 30]), (False, [1, 2, 3])):
            C = np.zeros(3, np.int32)
            mod(np.array([1, 2, 3], np.int32), flag, C)
            assert C.tolist() == expected


def test_gather_scatter_and_string_layouts(tmp_path):
    source = """
    from allo.memory import MemLayout

    LyA = MemLayout("RS0")
    LyB = MemLayout("S0R")

    @df.region()
    def top(A: int16[4, 8], B: int16[8, 4], C: int16[4, 4], D: int16[2, 4]):
        pipe: Stream[int16[4, 4], 2][2]
        rows: Stream[int16[4], 2][2]

        @df.kernel(mapping=[2], args=[A, B])
        def partial(local_A: int16[4, 8] @ LyA, local_B: int16[8, 4] @ LyB):
            p = df.get_pid()
            pipe[p].put(allo.matmul(local_A, local_B))

        @df.kernel(mapping=[1], args=[C, D])
        def reduce(local_C: int16[4, 4], local_D: int16[2, 4]):
            parts: int16[2, 4, 4] = df.gather(pipe[:])
            local_C[:, :] = parts[0] + parts[1]
            df.scatter(parts[0][0:2], [rows[0], rows[1]])
            local_D[:, :] = df.gather([rows[0], rows[1]])
    """
    A = np.arange(32, dtype=np.int16).reshape(4, 8)
    B = np.ones((8, 4), np.int16)
    C, D = np.zeros((4, 4), np.int16), np.zeros((2, 4), np.int16)
    run(tmp_path, source, A, B, C, D)
    np.testing.assert_array_equal(C, A @ B)
    np.testing.assert_array_equal(D, (A[:, :4] @ B[:4])[0:2])


def test_vitis_hls_wants_output_arguments_last_unless_num_output_args_is_given(tmp_path):
    source = """
    @df.region()
    def top(B: int32[4], A: int32[4], C: int32[4]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def k(local_A: int32[4], local_B: int32[4], local_C: int32[4]):
            for i in range(4):
                local_B[i] = local_A[i]
                local_C[i] += 1
    """
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(RuntimeError, match="^Output arguments must appear at the end.$"):
            module.df.build(module.top, target="vitis_hls")
        module.df.build(module.top, target="vitis_hls", configs={"num_output_args": 2})
        module.df.build(module.top, target="vhls")  # vitis_hls only
