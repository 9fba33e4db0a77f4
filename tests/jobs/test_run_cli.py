"""`allo-lsp run` through every outcome of a job, with real processes and the stand-in Allo."""

import json
import os
import subprocess
import sys

import pytest
from designs import alive, design, fake_llvm_build_dir, line_of, pids
from paths import STANDIN


@pytest.fixture
def llvm():
    return fake_llvm_build_dir()


def run(target: str, *args: str, standin: bool = True, timeout: float = 60) -> tuple[dict, int]:
    env = dict(os.environ)
    env.pop("LLVM_BUILD_DIR", None)
    env["PYTHONPATH"] = str(STANDIN) if standin else ""
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "run", target, "--format", "json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    return json.loads(out.stdout), out.returncode


def test_passed_simulation_reports_outputs_and_threads(tmp_path, llvm):
    path = design(tmp_path)
    result, rc = run(f"{path}::top", "--llvm-build-dir", llvm)
    assert rc == 0
    assert (result["status"], result["cause"], result["backend"], result["target"]) == ("passed", None, "allo", "top")
    assert result["omp_num_threads"] == 2  # one thread per PE
    assert [o["name"] for o in result["outputs"]] == ["B"] and result["outputs"][0]["shape"] == [8, 8]
    assert result["duration_s"] > 0
    assert set(result) >= {
        "status",
        "cause",
        "message",
        "backend",
        "target",
        "duration_s",
        "omp_num_threads",
        "line",
        "reproducer",
    }


def test_omp_threads_setting_wins_when_larger(tmp_path, llvm):
    result, _ = run(f"{design(tmp_path)}::top", "--llvm-build-dir", llvm, "--omp-threads", "8")
    assert result["omp_num_threads"] == 8


def test_assertion_points_at_the_assert(tmp_path, llvm):
    path = design(tmp_path)  # the stand-in computes nothing, so the test's golden check fails
    result, rc = run(f"{path}::test_producer_consumer", "--llvm-build-dir", llvm)
    assert rc == 1
    assert (result["status"], result["cause"]) == ("failed", "assertion")
    assert result["line"] == line_of(path, "np.testing.assert_array_equal")


def test_exception_in_user_code(tmp_path, llvm):
    path = design(tmp_path, extra="\n\ndef test_broken():\n    values = {}\n    return values['missing']\n")
    result, _ = run(f"{path}::test_broken", "--llvm-build-dir", llvm)
    assert (result["status"], result["cause"]) == ("failed", "user_error")
    assert result["line"] == line_of(path, "values['missing']") and "KeyError" in result["message"]


def test_allo_build_error_maps_to_the_kernel(tmp_path, llvm):
    path = design(tmp_path, "build_error")
    result, _ = run(f"{path}::top", "--llvm-build-dir", llvm)
    assert (result["status"], result["cause"]) == ("error", "allo_error")
    assert (
        result["message"]
        == "Invalid @df.kernel decorator on function 'producer': missing required 'mapping' parameter."
    )
    assert result["line"] == line_of(path, "@df.kernel(mapping=[1], args=[A, n])")


@pytest.mark.parametrize("behaviour", ["compiler_bug", "option_fast"])
def test_library_bugs_come_with_a_reproducer(tmp_path, llvm, behaviour):
    result, _ = run(f"{design(tmp_path, behaviour)}::top", "--llvm-build-dir", llvm)
    assert (result["status"], result["cause"]) == ("error", "library_bug")
    assert "not your code" in result["message"]
    script = result["reproducer"]
    assert "@df.region()" in script and 'mod = df.build(top, target="simulator")' in script
    assert "def test_producer_consumer" not in script
    compile(script, "repro.py", "exec")


def test_environment_problems_say_what_to_set(tmp_path, llvm):
    path = design(tmp_path)
    result, _ = run(f"{path}::top", "--backend", "allo")  # no LLVM_BUILD_DIR anywhere
    assert (result["status"], result["cause"]) == ("error", "environment")
    assert "LLVM_BUILD_DIR is not set" in result["message"] and "alloDataflow.llvmBuildDir" in result["message"]
    assert pids(path) == []  # nothing was run
    broken, _ = run(f"{path}::top", "--llvm-build-dir", str(tmp_path), "--backend", "allo")
    assert "lacks lib/libomp.so" in broken["message"]
    glibc, _ = run(f"{design(tmp_path, 'glibc', name='g.py')}::top", "--llvm-build-dir", llvm)
    assert (glibc["cause"], glibc["message"].split(":")[0]) == ("environment", "GLIBC_2.34 not found")
    no_allo, _ = run(f"{path}::top", "--llvm-build-dir", llvm, "--backend", "allo", standin=False)
    assert no_allo["cause"] == "environment" and "allo is not importable" in no_allo["message"]
    python, _ = run(f"{path}::top", "--llvm-build-dir", llvm, "--python", str(tmp_path / "nope" / "python"))
    assert python["cause"] == "environment" and "does not exist" in python["message"]


def test_no_crash_at_interpreter_exit_after_the_result(tmp_path, llvm):
    """Allo's OpenMP teardown segfaults at interpreter exit (the stand-in: an atexit hook): the
    runner leaves with os._exit right after writing its result, so no teardown runs."""
    result, rc = run(f"{design(tmp_path, 'segfault_at_exit')}::top", "--llvm-build-dir", llvm)
    assert rc == 0
    assert (result["status"], result["cause"]) == ("passed", None)


def test_segfault_before_the_result_is_a_crash(tmp_path, llvm):
    result, rc = run(f"{design(tmp_path, 'segfault')}::top", "--llvm-build-dir", llvm)
    assert rc == 1
    assert (result["status"], result["cause"]) == ("crashed", "crash") and "SIGSEGV" in result["message"]


def test_hang_times_out_and_leaves_no_process(tmp_path, llvm):
    path = design(tmp_path, "hang")
    result, _ = run(f"{path}::top", "--llvm-build-dir", llvm, "--timeout", "2")
    assert (result["status"], result["cause"]) == ("timeout", "timeout")
    assert "OMP_NUM_THREADS=2" in result["message"] and "2 PEs" in result["message"]
    assert 2 <= result["duration_s"] < 6
    (pid,) = pids(path)
    assert not alive(pid)


def test_unknown_target_and_bad_usage(tmp_path):
    path = design(tmp_path)
    result, rc = run(f"{path}::nothing_here")
    assert rc == 1 and result["cause"] == "environment" and "no module-level region or function" in result["message"]
    out = subprocess.run([sys.executable, "-m", "allo_lsp", "run", str(path)], capture_output=True, text=True)
    assert out.returncode == 2 and "FILE::NAME" in out.stderr


def test_auto_backend_falls_back_to_the_reference_executor_and_says_so(tmp_path, llvm):
    path = design(tmp_path)
    without_llvm, _ = run(f"{path}::test_producer_consumer")
    assert (without_llvm["status"], without_llvm["backend"]) == ("passed", "reference")
    without_allo, _ = run(f"{path}::top", "--llvm-build-dir", llvm, standin=False)
    assert (without_allo["status"], without_allo["backend"]) == ("passed", "reference")
    with_both, _ = run(f"{path}::top", "--llvm-build-dir", llvm)
    assert with_both["backend"] == "allo"


def test_differential_check_reports_the_largest_difference(tmp_path, llvm):
    # The stand-in computes nothing, so Allo's "outputs" stay zero: the reference executor disagrees.
    result, _ = run(f"{design(tmp_path)}::top", "--llvm-build-dir", llvm)
    diff = result["details"]["differential"]["max_abs_diff"]["B"]
    assert diff > 0


def test_a_failed_allclose_shows_its_mismatch_lines(tmp_path):
    # numpy's report starts with its tolerance; the mismatch summary under it says how wrong the
    # design is, and the diagnostic (the message) must carry it.
    extra = (
        "\n\ndef test_close():\n"
        "    got = np.array([1.0, 2.0, 3.0, 4.0])\n"
        "    np.testing.assert_allclose(got, [1.0, 2.0, 3.5, 4.0], rtol=1e-5)\n"
    )
    path = design(tmp_path, extra=extra)
    result, rc = run(f"{path}::test_close", "--backend", "reference", standin=False)
    assert (rc, result["status"], result["cause"]) == (1, "failed", "assertion")
    lines = result["message"].splitlines()
    assert lines[0] == "assertion failed: Not equal to tolerance rtol=1e-05, atol=0"
    assert "Mismatched elements: 1 / 4 (25%)" in lines
    assert any(line.startswith("Max absolute difference") and "0.5" in line for line in lines)
