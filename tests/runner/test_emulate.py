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
