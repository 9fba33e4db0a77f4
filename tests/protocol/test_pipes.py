"""What the job manager and the runner say to each other over the runner's pipes (protocol/pipes.py)."""

from allo_lsp.protocol.messages import MLIR, ArgSpec, JobRequest
from allo_lsp.protocol.pipes import READY, STARTED, JobLine, is_marker, phase_line, phase_of


def test_the_job_line_round_trips_as_one_line():
    job = JobLine(
        JobRequest(MLIR, "/w/d.py", "top", args=[ArgSpec("A", "int32", [4], "in")], options={"clock": 3.3}),
        "/tmp/allo-lsp-job-1",
        {"OMP_NUM_THREADS": "4", "LLVM_BUILD_DIR": None},
        "n0nce",
    )
    line = job.encode()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert JobLine.decode(line) == job


def test_marker_lines_are_phases_and_not_the_users_output():
    assert phase_of(phase_line("building").encode() + b"\r") == "building"
    assert phase_of(READY.encode()) == STARTED
    assert is_marker(phase_line("done").encode()) and is_marker(READY.encode())
    printed = b"phase building"
    assert phase_of(printed) is None and not is_marker(printed)
