"""The reference executor against numpy golden results, Allo's storage rules and deadlocks."""

import numpy as np
import pytest
from allo_lsp.runner.reference import Deadlock, Unsupported
from paths import EXAMPLES
from reference_harness import load, run, shim


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("example", "test"),
    [
        ("producer_consumer.py", "test_producer_consumer"),
        ("systolic_gemm.py", "test_systolic_gemm"),
        ("tiled_gemm.py", "test_tiled_gemm"),
        ("hierarchical.py", "test_hierarchical"),
        ("region_in_test.py", "test_vector_add"),
        ("unsigned_streams.py", "test_unsigned_streams"),
    ],
)
def test_examples_match_their_numpy_golden(tmp_path, example, test):
    """Each example's own test (numpy asserts) runs unmodified on the executor."""
    with shim():
        module, _ = load(tmp_path, (EXAMPLES / example).read_text())
        getattr(module, test)()


def test_double_put(tmp_path):
    source = """
    @df.region()
    def top(A: int32[8], B: int32[8]):
        pipe: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[8]):
            for i in range(8):
                pipe.put(local_A[i])
                pipe.put(local_A[i] * 10)

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[8]):
            for i in range(8):
                local_B[i] = pipe.get() + pipe.get()
    """
    A, B = np.arange(8, dtype=np.int32), np.zeros(8, dtype=np.int32)
    run(tmp_path, source, A, B)
    np.testing.assert_array_equal(B, A * 11)


def test_integer_overflow_and_unsigned_wrap(tmp_path):
    source = """
    @df.region()
    def top(A: int8[4], B: uint8[4], C: int32[6], D: float32[2]):
        @df.kernel(mapping=[1], args=[A, B, C, D])
        def k(local_A: int8[4], local_B: uint8[4], local_C: int32[6], local_D: float32[2]):
            acc: int8 = 100
            acc += 100
            local_A[0] = acc
            local_A[1] = 127 + 1
            local_A[2] = -129
            local_A[3] = 3.9
            local_B[0] = 250 + 10
            local_B[1] = -1
            u4: UInt(4) = 17
            local_B[2] = u4
            s4: Int(4) = 9
            local_C[0] = s4
            bf: bfloat16 = 1.00390625
            local_D[1] = bf
            wide: int16 = 70000
            local_C[1] = wide
            big: Int(64) = 2147483648
            local_C[2] = big
            small: Int(64) = -2147483649
            local_C[3] = small
            neg: int8 = -3.7
            local_C[4] = neg
            local_C[5] = acc * 2
    """
    A, B = np.zeros(4, np.int8), np.zeros(4, np.uint8)
    C, D = np.zeros(6, np.int32), np.zeros(2, np.float32)
    run(tmp_path, source, A, B, C, D)
    assert A.tolist() == [-56, -128, 127, 3]  # 200 wraps to -56; C truncates toward zero
    assert B.tolist()[:3] == [4, 255, 1]  # 260 mod 256, -1 mod 256, 17 mod 16
    assert C.tolist() == [-7, 4464, -(2**31), 2**31 - 1, -3, -112]  # Int(4): 9 -> -7; 70000 mod 2**16
    assert D[1] == 1.0  # bfloat16 keeps 8 bits of mantissa: 1 + 2**-8 rounds to 1


def test_streams_store_their_element_type(tmp_path):
    source = """
    @df.region()
    def top(A: int32[3], B: int32[3]):
        narrow: Stream[int8, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[3]):
            for i in range(3):
                narrow.put(local_A[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[3]):
            for i in range(3):
                v: int8 = narrow.get()  # Allo casts no get: into local_B, an int32, it does not build
                local_B[i] = v
    """
    A, B = np.array([1, 200, -300], np.int32), np.zeros(3, np.int32)
    run(tmp_path, source, A, B)
    assert B.tolist() == [1, -56, -44]


def test_local_arrays_slices_constexpr_helpers_and_layout_shards(tmp_path):
    source = """
    S = df.Layout.Shard
    R = df.Layout.Replicate

    def double(x):
        return x * 2

    @df.region()
    def top(A: int32[4, 4], B: int32[4, 4]):
        @df.kernel(mapping=[2], args=[A, B])
        def rows(local_A: int32[4, 4] @ [S(0), R], local_B: int32[4, 4] @ [S(0), R]):
            pi = df.get_pid()
            H: ConstExpr[int32] = 2
            tmp: int32[2, 4] = 0
            for i, j in allo.grid(H, 4):
                tmp[i, j] = double(local_A[i, j]) + pi
            local_B[:, :] = tmp[:, :]
    """
    A, B = np.arange(16, dtype=np.int32).reshape(4, 4), np.zeros((4, 4), np.int32)
    run(tmp_path, source, A, B)
    np.testing.assert_array_equal(B, A * 2 + np.repeat([[0], [0], [1], [1]], 4, axis=1))


def test_starved_get_is_a_deadlock_with_every_blocked_pe(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        pipe: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[4]):
            for i in range(3):
                pipe.put(local_A[i])

        @df.kernel(mapping=[2], args=[B])
        def consumer(local_B: int32[4]):
            local_B[0] = pipe.get() + pipe.get()
    """
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, source, np.zeros(4, np.int32), np.zeros(4, np.int32))
    (blocked,) = caught.value.blocked
    assert (blocked.op, blocked.stream, blocked.occupancy, blocked.depth) == ("get", "pipe", 0, 4)
    assert blocked.pe in ("consumer_0", "consumer_1")
    assert "deadlock: no PE can make progress" in str(caught.value)


def test_full_fifo_put_is_a_deadlock_at_its_line(tmp_path):
    source = """
    @df.region()
    def top(A: int32[8], B: int32[8]):
        fifo: Stream[int32, 2][2]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[8]):
            for i in range(8):
                fifo[1].put(local_A[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[8]):
            local_B[0] = fifo[1].get()
    """
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, source, np.zeros(8, np.int32), np.zeros(8, np.int32))
    (blocked,) = caught.value.blocked
    assert (blocked.pe, blocked.op, blocked.stream, blocked.occupancy) == ("producer_0", "put", "fifo[1]", 2)
    path = sorted(tmp_path.glob("design_*.py"))[-1]
    assert blocked.line == line_of(path, "fifo[1].put(")


def test_unsupported_constructs_are_errors_with_their_line(tmp_path):
    source = """
    @df.region()
    def top(A: float32[4], B: float32[4]):
        @df.kernel(mapping=[1], args=[A, B])
        def k(local_A: float32[4], local_B: float32[4]):
            local_B[:] = allo.conv2d(local_A)
    """
    with pytest.raises(Unsupported) as caught:
        run(tmp_path, source, np.zeros(4, np.float32), np.zeros(4, np.float32))
    path = sorted(tmp_path.glob("design_*.py"))[-1]
    assert str(caught.value) == (
        f"allo.conv2d (line {line_of(path, 'allo.conv2d')}) is not supported by the reference executor; use the Allo backend"
    )


def test_hls_and_aie_builds_succeed_and_refuse_to_run(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[4]):
            local_A[0] = 1
    """
    with shim():
        module, path = load(tmp_path, source)
        from allo.backend import aie, hls

        assert hls.is_available("vitis_hls") is False and aie.is_available() is False
        for target, mode in [("vitis_hls", m) for m in ("csim", "csyn", "sw_emu", "hw_emu", "hw")] + [
            (t, None) for t in ("vhls", "vivado_hls", "pynq", "tapa", "ihls", "catapult", "xls", "xlscc", "aie")
        ]:
            mod = module.df.build(module.top, target=target, mode=mode, project=str(tmp_path / "p.prj"))
            for use in (lambda m=mod: m(np.zeros(4, np.int32)), lambda m=mod: m.hls_code, lambda m=mod: m.module):
                with pytest.raises(Unsupported, match=f'target="{target}"'):
                    use()
        assert module.df.build(module.top, target="simulator") is not None
