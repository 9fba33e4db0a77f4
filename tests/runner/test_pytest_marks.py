"""A test function runs as pytest would run it (runner/pytest_marks.py), and a generic region on
an old Python is an environment problem, not the user's syntax error."""

import types

import pytest
from allo_lsp.protocol.messages import FAILED, PASSED, SKIPPED, UNSUPPORTED, JobResult
from allo_lsp.runner import pytest_marks


def classify(exc):
    return JobResult(FAILED, "assertion", f"assertion failed: {exc}")


def test_skip_and_a_true_skipif_end_skipped_with_the_reason_without_running():
    ran = []

    @pytest.mark.skip(reason="hangs at large sizes")
    def skipped():
        ran.append(1)

    @pytest.mark.skipif(True, reason="needs vitis")
    def skipped_if():
        ran.append(2)

    @pytest.mark.skipif(False, reason="never")
    def runs():
        ran.append(3)

    assert pytest_marks.run_test(skipped, "skipped", classify).status == SKIPPED
    result = pytest_marks.run_test(skipped_if, "skipped_if", classify)
    assert (result.status, result.message) == (SKIPPED, "skipped: needs vitis")
    assert pytest_marks.run_test(runs, "runs", classify).status == PASSED
    assert ran == [3]


def test_parametrize_runs_every_set_and_reports_each():
    seen = []

    @pytest.mark.parametrize("m", [2, 4])
    @pytest.mark.parametrize("n, k", [(1, 1), (3, 3)], ids=["small", "large"])
    def gemm(m, n, k):
        seen.append((m, n, k))
        assert m * n != 12, "4 x 3 fails"

    result = pytest_marks.run_test(gemm, "gemm", classify)
    assert sorted(seen) == [(2, 1, 1), (2, 3, 3), (4, 1, 1), (4, 3, 3)]
    assert result.status == FAILED
    assert result.message.startswith(
        "3 of 4 parameter sets of gemm() passed; first failure: assertion failed: 4 x 3 fails"
    )
    reports = {r["id"]: r["status"] for r in result.details["parameters"]}
    assert reports == {"small-2": PASSED, "small-4": PASSED, "large-2": PASSED, "large-4": FAILED}


def test_a_fixture_the_runner_does_not_provide_is_refused_by_name():
    def needs(tmp_path):
        pass

    result = pytest_marks.run_test(needs, "needs", classify)
    assert (result.status, result.cause) == ("error", UNSUPPORTED)
    assert "the pytest fixture 'tmp_path'" in result.message


def test_a_generic_region_on_python_3_11_needs_python_3_12(monkeypatch):
    error = SyntaxError("invalid syntax", ("design.py", 12, 10, "def inner[P0, P1](A: int32[4]):\n"))
    monkeypatch.setattr(pytest_marks, "sys", types.SimpleNamespace(version_info=(3, 11, 7)))
    message = pytest_marks.python_too_old(error)
    assert message.startswith("generic regions (`def name[P0, P1](...)`, line 12) need Python >= 3.12, as Allo does")
    assert pytest_marks.python_too_old(SyntaxError("invalid syntax", ("d.py", 3, 1, "x = = 1\n"))) is None
