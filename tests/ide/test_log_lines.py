"""What the server logs of a finished job (ide/log_lines.py): the backend that ran it, and the
elements a run left unread as a warning."""

from allo_lsp.ide.log_lines import DEBUG, INFO, WARN, job_lines, probe_lines
from allo_lsp.protocol.messages import JobResult


def test_a_job_line_names_the_backend_of_a_simulation():
    outcome = JobResult("passed", message="top simulated", backend="reference", target="top", duration_s=0.21)
    (line,) = job_lines(outcome, "/w/design.py", "simulate")
    assert (line.level, line.text) == (INFO, "[top] passed: top simulated (simulate design.py::top, 0.2 s, reference)")
    (mlir,) = job_lines(JobResult("passed", message="MLIR of top", backend="allo", target="top"), "/w/d.py", "mlir")
    assert mlir.text == "[top] passed: MLIR of top (mlir d.py::top)"


def test_a_run_that_left_elements_unread_is_a_warning_that_says_so():
    pipe = {"line": 3, "depth": 16, "fifos": 1, "puts": 16, "gets": 8, "leftover": 8}
    details = {"fifo_statistics": [{"region": "top", "streams": {"s1": pipe}}]}
    outcome = JobResult("passed", message="top simulated", backend="reference", target="top", details=details)
    (line,) = job_lines(outcome, "/w/design.py", "simulate")
    assert (line.level, line.text) == (
        WARN,
        "[top] passed, 8 elements left unread in `s1`: top simulated (simulate design.py::top, reference)",
    )


def test_the_probe_line_says_one_thing_when_it_could_not_tell():
    """It said "could not tell which order the Allo of python compiles ... (passed: MLIR of ...)":
    a probe that passed yet could not tell, of an Allo that may not be there (issue 26, item 9)."""
    ran = JobResult("passed", message="MLIR of allo_lsp_probe", backend="allo", target="allo_lsp_probe")
    (line, _) = probe_lines("/env/bin/python", None, ran)
    assert line.level == WARN
    assert line.text.startswith("allo-lsp: the argument-order probe ran in /env/bin/python, but ")
    assert "could not" not in line.text and "(passed" not in line.text
    failed = JobResult("setup_error", message="No module named 'allo'\nmore", target="allo_lsp_probe")
    (line, detail) = probe_lines("/usr/bin/python3", None, failed)
    assert line.text.startswith(
        "allo-lsp: the argument-order probe did not run in /usr/bin/python3 (setup_error: No module named 'allo'); "
    )
    assert "the Allo of" not in line.text and "\n" not in line.text
    # Either way: what ADF003 does meanwhile and what to set, once.
    assert line.text.count("ADF003") == 1 and line.text.count("alloBuild") == 1
    assert detail.level == DEBUG and "more" in detail.text
