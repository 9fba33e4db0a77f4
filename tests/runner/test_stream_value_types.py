"""A stream value of another type than where it goes, on the reference executor as in Allo
a098603f (issue 27 point 3): `build_assign_stmt` casts no stream get, so a get stored into a
local or an array element of another MLIR type is a store MLIR's verifier refuses when
`_build_top` canonicalizes the module (every target); the simulator converts a put's value only
between integers (`_process_function_streams`), so any other pair is a store the verifier refuses
in `LLVMOMPModule`'s lowering. Both are an MLIRError out of `df.build`, not an exit status."""

import numpy as np
import pytest
from allo_lsp.protocol.kernel_model import VERIFIER
from allo_lsp.runner.reference.typed import MLIRError

from tests.runner.reference_harness import load, run, shim


def _consumer(body: str) -> str:
    """A producer of int32 values and a consumer of `body` that writes an int16 array."""
    return f"""
    @df.region()
    def top(A: int32[4], B: int16[4]):
        s: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int32[4]):
            for i in range(4):
                s.put(a[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: int16[4]):
            {body}
    """


def _build_error(tmp_path, source: str, target: str = "simulator") -> tuple[MLIRError, str]:
    with shim():
        module, path = load(tmp_path, source)
        with pytest.raises(MLIRError) as raised:
            module.df.build(module.top, target=target)
    return raised.value, str(path)


@pytest.mark.parametrize("target", ["simulator", "vitis_hls"])
def test_a_get_into_a_narrower_local_stops_the_build_at_every_target(tmp_path, capsys, target):
    body = "for i in range(4):\n                x: int16 = s.get()\n                b[i] = x"
    error, path = _build_error(tmp_path, _consumer(body), target)
    # The local's declaration, where Allo's builder locates the store (`Location.file`): line 18
    # of the design file (the harness's 4 header lines, then the source), column 12.
    assert str(error) == (f'Failure while executing pass pipeline:\nerror: "{path}":18:12: {VERIFIER["affine.store"]}')
    assert "Error: failed to run MLIR lower pipeline" in capsys.readouterr().out


def test_a_get_into_an_array_element_at_a_computed_index_is_a_memref_store(tmp_path):
    body = "for i in range(4):\n                k = 3 - i\n                b[k] = s.get()"
    error, _ = _build_error(tmp_path, _consumer(body))
    assert str(error).endswith(VERIFIER["memref.store"])


@pytest.mark.parametrize(
    ("put", "stream"),
    [("s.put(a[i])", "Stream[int32, 4]"), ("s.put(i)", "Stream[int32, 4]"), ("s.put(a[i])", "Stream[float32, 4]")],
    ids=["float32 into int32", "index into int32", "float32 into float32"],
)
def test_a_put_the_simulator_cannot_convert_stops_its_build_only(tmp_path, put, stream):
    element = stream.split("[")[1].split(",")[0]
    source = f"""
    @df.region()
    def top(A: float32[4], B: {element}[4]):
        s: {stream}

        @df.kernel(mapping=[1], args=[A])
        def producer(a: float32[4]):
            for i in range(4):
                {put}

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: {element}[4]):
            for i in range(4):
                b[i] = s.get()
    """
    if element == "float32":  # the same type: built and run
        B = np.zeros(4, np.float32)
        run(tmp_path, source, np.arange(4, dtype=np.float32), B)
        assert B.tolist() == [0, 1, 2, 3]
        return
    error, _ = _build_error(tmp_path, source)
    assert str(error) == f"Failure while executing pass pipeline:\nerror: unknown: {VERIFIER['memref.store']}"
    with shim():
        module, _ = load(tmp_path, source)
        module.df.build(module.top, target="vitis_hls")  # HLS C++ converts it: built


def test_what_allo_builds_as_it_is_runs(tmp_path):
    # A get into UInt(32) (i32 as int32 is), an untyped local (the stream's type), a uint8 put
    # (zero-extended by the simulator) and a meta_for variable put (an i32 constant).
    source = """
    @df.region()
    def top(A: uint8[2], B: uint32[4], C: int32[4]):
        s: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: uint8[2]):
            s.put(a[0])
            s.put(a[1])
            with allo.meta_for(2) as j:
                s.put(j)

        @df.kernel(mapping=[1], args=[B, C])
        def consumer(b: uint32[4], c: int32[4]):
            for i in range(4):
                b[i] = s.get()
                c[i] = i
    """
    B, C = np.zeros(4, np.uint32), np.zeros(4, np.int32)
    run(tmp_path, source, np.array([200, 7], np.uint8), B, C)
    assert B.tolist() == [200, 7, 0, 1]
