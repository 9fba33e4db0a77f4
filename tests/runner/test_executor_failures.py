"""The executor never blames the user for its own failures (issue 27, point 6): the designs that
crashed it run, an exception inside it ends as `unsupported` naming the construct, a missing
third-party module is the environment's, and a passed run says what it left unread in a FIFO.
Each design runs as a user runs it: `allo-lsp run FILE::TEST --backend reference`."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import allo_lsp
import pytest

HEADER = """\
import allo
from allo.ir.types import int32, float32, UInt, Stream
import allo.dataflow as df
import numpy as np
"""


def run(tmp_path, source: str, test: str = "test_design", **files):
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    path = tmp_path / "design.py"
    path.write_text(HEADER + textwrap.dedent(source))
    # The allo_lsp under test (its source directory first), and the design's own directory.
    server = os.path.dirname(os.path.dirname(allo_lsp.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([server, str(tmp_path)]))
    env.pop("LLVM_BUILD_DIR", None)
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "run", f"{path}::{test}", "--backend", "reference", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    return json.loads(out.stdout)


def test_a_one_variable_grid_and_reduction_give_indices_not_tuples(tmp_path):
    result = run(
        tmp_path,
        """
        N = 4

        @df.region()
        def top(A: int32[N], B: int32[N]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(a: int32[N], b: int32[N]):
                for i in allo.grid(N):
                    b[i] = a[i] + i
                for j in allo.reduction(N):
                    b[j] += 1

        def test_design():
            A, B = np.arange(N, dtype=np.int32), np.zeros(N, np.int32)
            df.build(top, target="simulator")(A, B)
            assert B.tolist() == [1, 3, 5, 7]
        """,
    )
    assert result["status"] == "passed", result["message"]


def test_wide_integers_passed_as_struct_arrays(tmp_path):
    # allo.utils.get_np_struct_type(128): each element its 16 bytes, little-endian.
    result = run(
        tmp_path,
        """
        from allo.utils import get_np_struct_type

        @df.region()
        def top(A: UInt(128)[2], B: UInt(128)[2]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(a: UInt(128)[2], b: UInt(128)[2]):
                for i in range(2):
                    b[i] = a[i] + 1

        def test_design():
            A, B = np.zeros(2, get_np_struct_type(128)), np.zeros(2, get_np_struct_type(128))
            A.view(np.uint8).reshape(2, 16)[0, 15] = 1  # 2**120
            A.view(np.uint8).reshape(2, 16)[1, :] = 0xFF  # 2**128 - 1: + 1 wraps to 0
            df.build(top, target="simulator")(A, B)
            raw = B.view(np.uint8).reshape(2, 16)
            assert [int.from_bytes(r.tobytes(), "little") for r in raw] == [2**120 + 1, 0]
        """,
    )
    assert result["status"] == "passed", result["message"]


def test_pep_695_type_parameters_in_an_imported_modules_annotations(tmp_path):
    result = run(
        tmp_path,
        """
        import helpers

        @df.region()
        def top(A: int32[2], B: int32[2]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(a: int32[2], b: int32[2]):
                b[0] = a[1]

        def test_design():
            A, B = np.arange(2, dtype=np.int32), np.zeros(2, np.int32)
            df.build(top, target="simulator")(A, B)
            assert B.tolist() == [1, 0]
        """,
        helpers="""
        from allo.ir.types import float32

        def f[T, N](L: float32[N, N]):
            pass
        """,
    )
    assert result["status"] == "passed", result["message"]


def test_an_exception_inside_the_executor_is_unsupported_naming_the_construct(tmp_path):
    result = run(
        tmp_path,
        """
        @df.region()
        def top(A: int32[2], B: float32[2]):
            @df.kernel(mapping=[1], args=[A, B])
            def k(a: int32[2], b: float32[2]):
                b[:] = a.bitcast()

        def test_design():
            df.build(top, target="simulator")(np.arange(2, dtype=np.int32), np.zeros(2, np.float32))
        """,
    )
    assert (result["status"], result["cause"]) == ("error", "unsupported")
    assert "the reference executor failed on `b[:] = a.bitcast()`" in result["message"]


@pytest.mark.skipif(importlib.util.find_spec("ml_dtypes") is not None, reason="ml_dtypes is installed here")
def test_a_missing_third_party_module_is_the_environments(tmp_path):
    result = run(
        tmp_path,
        """
        import ml_dtypes

        def test_design():
            pass
        """,
    )
    assert (result["status"], result["cause"]) == ("error", "environment")
    assert "imports 'ml_dtypes', which is not installed" in result["message"]


def test_a_passed_run_says_what_it_left_unread_in_a_fifo(tmp_path):
    result = run(
        tmp_path,
        """
        @df.region()
        def top(A: int32[2], B: int32[2]):
            s: Stream[int32, 4]

            @df.kernel(mapping=[1], args=[A])
            def p(a: int32[2]):
                s.put(a[0])
                s.put(a[1])

            @df.kernel(mapping=[1], args=[B])
            def c(b: int32[2]):
                b[0] = s.get()

        def test_design():
            df.build(top, target="simulator")(np.arange(2, dtype=np.int32), np.zeros(2, np.int32))
        """,
    )
    assert result["status"] == "passed"
    assert "left 1 element unread in `s`" in result["message"]
