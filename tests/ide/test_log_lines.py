"""What the server logs of a finished job (ide/log_lines.py): the backend that ran it, and the
elements a run left unread as a warning."""

from allo_lsp.ide.log_lines import INFO, WARN, job_lines
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
