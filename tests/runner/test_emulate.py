"""`allo-lsp run --emulate aie|csim`: modules built for AIE or Vitis HLS csim run functionally
on the reference executor, and the result says so; what cannot be emulated is refused."""

import json
import os
import subprocess
import sys
import textwrap

AIE_DESIGN = """
import allo
from allo.ir.types import bfloat16, float32, int32
import allo.dataflow as df
from allo.memory import Layout
from allo.backend.aie import is_available
import allo.backend.hls as hls
import numpy as np

S = Layout.Shard
R = Layout.Replicate
M, N = 8, 4


@df.region()
def top(A: bfloat16[M, N], B: bfloat16[M, N], C: float32[M, N]):
    @df.kernel(mapping=[2, 1], args=[A, B, C])
    def core(local_A: bfloat16[M, N] @ [S(0), R], local_B: bfloat16[M, N] @ [S(0), R],
             local_C: float32[M, N] @ [S(0), R]):
        for i, j in allo.grid(M // 2, N):
            local_C[i, j] = local_A[i, j] * local_B[i, j]


def inputs():
    A = (np.arange(M * N, dtype=np.float32).reshape(M, N) / 7).astype(np.float32)
    return A, np.full((M, N), 3.0, np.float32)


def test_aie():
    assert is_available()
    mod = df.build(top, target="aie", mapping_primitives=[("bundle", ["core_0_0", "core_1_0"])])
    A, B = inputs()
    C = np.zeros((M, N), np.float32)
    mod(A, B, C)
    # bfloat16 inputs: the products of the rounded values, not of the float32 ones
    rounded = (A.view(np.uint32) + 0x7FFF + ((A.view(np.uint32) >> 16) & 1)) & 0xFFFF0000
    np.testing.assert_allclose(C, rounded.view(np.float32) * 3.0)


def test_csim():
    assert hls.is_available("vitis_hls")
    mod = df.build(top, target="vitis_hls", mode="csim", project="p.prj")
    A, B = inputs()
    C = np.zeros((M, N), np.float32)
    mod(A, B, C)
    assert C[1, 1] != 0


def bf16(x):
    bits = np.asarray(x, np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)


def test_aie_then_csim():
    # One region built for two targets in one process: each build computes in its own types
    # (AIE: the bfloat16 product in float32; HLS: rounded to bfloat16 as Allo types it).
    A, B = inputs()
    C = np.zeros((M, N), np.float32)
    df.build(top, target="aie")(A, B, C)
    np.testing.assert_array_equal(C, bf16(A) * 3.0)
    D = np.zeros((M, N), np.float32)
    df.build(top, target="vitis_hls", mode="csim", project="p.prj")(A, B, D)
    np.testing.assert_array_equal(D, bf16(bf16(A) * 3.0))
    assert (C != D).any()


def test_not_emulated():
    assert not is_available()
    mod = df.build(top, target="aie")
    mod(*inputs(), np.zeros((M, N), np.float32))


def test_vliw():
    from allo.backend.aie.vliw import create_vliw_module
"""


def run(path, target, *args):
    env = dict(os.environ)
    env.pop("LLVM_BUILD_DIR", None)
    env["PYTHONPATH"] = ""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "allo_lsp",
            "run",
            f"{path}::{target}",
            "--backend",
            "reference",
            "--format",
            "json",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    return json.loads(out.stdout)


def test_aie_and_csim_modules_run_on_the_executor_when_emulated(tmp_path):
    path = tmp_path / "aie_design.py"
    path.write_text(textwrap.dedent(AIE_DESIGN))
    aie = run(path, "test_aie", "--emulate", "aie")
    assert aie["status"] == "passed", aie["message"]
    assert aie["message"] == "test_aie() returned (emulated aie (functional, reference executor))"
    both = run(path, "test_aie_then_csim", "--emulate", "aie,csim")
    assert both["status"] == "passed", both["message"]
    csim = run(path, "test_csim", "--emulate", "csim")
    assert csim["status"] == "passed", csim["message"]
    assert "emulated csim (functional, reference executor)" in csim["message"]


def test_without_emulation_an_aie_module_is_unsupported_and_vliw_is_refused(tmp_path):
    path = tmp_path / "aie_design.py"
    path.write_text(textwrap.dedent(AIE_DESIGN))
    plain = run(path, "test_not_emulated")
    assert (plain["status"], plain["cause"]) == ("error", "unsupported")
    assert 'calling a df.build(..., target="aie") module (needs the aie toolchain)' in plain["message"]
    vliw = run(path, "test_vliw", "--emulate", "aie")
    assert (vliw["status"], vliw["cause"]) == ("error", "unsupported")
    assert vliw["message"] == "allo.backend.aie.vliw is not part of the reference executor"


# Allo's AIE backend (allo/backend/aie/utils.py, `inject_external_kernels`) replaces a
# `linalg.matmul` whose buffer is cast right away (the `cast_from` linalg.generic of
# `build_cast_op`) by the external kernel of the (input, cast target) pair, when its
# `matmul_external_kernel_config_map` has one: int16 x int16 accumulates in int32, int8 x int8 in
# int16 or int32. Allo's simulator computes the same `linalg.matmul` in the inputs' type.
MATMUL_DESIGN = """
import allo
from allo.ir.types import int8, int16, int32
import allo.dataflow as df
from allo.memory import Layout
import numpy as np

S = Layout.Shard
R = Layout.Replicate
M, N, K = 4, 6, 8


@df.region()
def widened(A: int16[M, K], B: int16[K, N], C: int32[M, N]):
    @df.kernel(mapping=[2, 1], args=[A, B, C])
    def mm(local_A: int16[M, K] @ [S(0), R], local_B: int16[K, N] @ [R, R],
           local_C: int32[M, N] @ [S(0), R]):
        local_C[:, :] = allo.matmul(local_A, local_B)


@df.region()
def declared(A: int8[M, K], B: int8[K, N], C: int16[M, N]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def mm(local_A: int8[M, K], local_B: int8[K, N], local_C: int16[M, N]):
        part: int16[M, N] = allo.matmul(local_A, local_B)
        local_C[:, :] = part


@df.region()
def narrow(A: int16[M, K], B: int16[K, N], C: int16[M, N]):
    @df.kernel(mapping=[1], args=[A, B, C])
    def mm(local_A: int16[M, K], local_B: int16[K, N], local_C: int16[M, N]):
        local_C[:, :] = allo.matmul(local_A, local_B)


def operands(dtype, low):
    A = (low + np.arange(M * K).reshape(M, K) % 23).astype(dtype)
    B = (low + np.arange(K * N).reshape(K, N) % 19).astype(dtype)
    exact = A.astype(np.int64) @ B.astype(np.int64)
    return A, B, exact


def test_widened_aie():
    A, B, exact = operands(np.int16, 150)
    assert exact.max() > 32767  # the int16 product overflows
    C = np.zeros((M, N), np.int32)
    df.build(widened, target="aie")(A, B, C)
    np.testing.assert_array_equal(C, exact)


def test_widened_simulator():
    A, B, exact = operands(np.int16, 150)
    C = np.zeros((M, N), np.int32)
    df.build(widened, target="simulator")(A, B, C)
    np.testing.assert_array_equal(C, exact.astype(np.int16))


def test_declared_aie():
    A, B, exact = operands(np.int8, 90)
    assert exact.max() > 32767
    C = np.zeros((M, N), np.int16)
    df.build(declared, target="aie")(A, B, C)
    np.testing.assert_array_equal(C, exact.astype(np.int16))


def test_narrow_aie():
    A, B, exact = operands(np.int16, 150)
    C = np.zeros((M, N), np.int16)
    df.build(narrow, target="aie")(A, B, C)
    np.testing.assert_array_equal(C, exact.astype(np.int16))
"""


def test_aie_matmul_accumulates_in_the_type_it_is_stored_into(tmp_path):
    path = tmp_path / "matmul_design.py"
    path.write_text(textwrap.dedent(MATMUL_DESIGN))
    for target in ("test_widened_aie", "test_widened_simulator", "test_declared_aie", "test_narrow_aie"):
        result = run(path, target, "--emulate", "aie")
        assert result["status"] == "passed", (target, result["message"])


LLVM_DESIGN = """
import allo
from allo.ir.types import float32
import allo.dataflow as df
import numpy as np


@df.region()
def top(A: float32[4], B: float32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def k(a: float32[4], b: float32[4]):
        for i in range(4):
            b[i] = allo.exp(a[i])


def test_llvm():
    A = np.arange(4, dtype=np.float32)
    B = np.zeros(4, np.float32)
    df.build(top, target="llvm")(A, B)
"""


def test_a_region_built_for_llvm_is_refused_not_run_as_the_simulator(tmp_path):
    # Allo builds it as an LLVMModule, whose pipeline lowers math (allo.exp builds there), not
    # as the simulator's LLVMOMPModule: answering with the simulator's rules would be wrong.
    path = tmp_path / "llvm_design.py"
    path.write_text(textwrap.dedent(LLVM_DESIGN))
    result = run(path, "test_llvm")
    assert (result["status"], result["cause"]) == ("error", "unsupported"), result["message"]
    assert result["message"].startswith(
        'df.build(..., target="llvm") of a @df.region (Allo builds it as an LLVMModule)'
    )
    assert result["line"] == 19
