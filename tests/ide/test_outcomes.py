"""A finished job in editor terms: where its problems are, without a server."""

from allo_lsp.analysis import analyze
from allo_lsp.analysis.problems import Severity
from allo_lsp.ide.outcomes import failure_message, findings, lens_title_after, placed, summary, target_line
from allo_lsp.protocol.messages import JobResult

DESIGN = """\
@df.region()
def top(A: int32[8]):
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[8]):
        pipe.put(local_A[0])


def test_top():
    mod = df.build(top)
"""


def problems(outcome: JobResult, name: str = "top"):
    model = analyze(DESIGN).model
    return [
        (p.range.start.line, p.range.start.column, p.code, p.severity)
        for p in placed(findings(outcome, model, name), DESIGN.splitlines(keepends=True))
    ]


def test_the_target_line_is_the_module_level_region_or_function():
    model = analyze(DESIGN).model
    assert (target_line(model, "top"), target_line(model, "test_top"), target_line(model, "nowhere")) == (1, 9, None)


def test_a_failure_at_its_line_over_the_code_of_that_line():
    outcome = JobResult("failed", "assertion", "boom", line=7, target="top")
    assert problems(outcome) == [(6, 8, "assertion", Severity.ERROR)]
    assert failure_message(outcome) is None
    assert summary(outcome) == "[top] failed: boom"


def test_a_failure_without_a_line_is_on_the_target_and_no_message():
    outcome = JobResult("error", "crash", "the runner died", target="test_top")
    assert problems(outcome, "test_top") == [(9, 0, "crash", Severity.ERROR)]
    assert failure_message(outcome) is None  # the diagnostic says it, and goes with the fix


def test_an_environment_failure_asks_with_its_fixes():
    outcome = JobResult("error", "environment", "python3.9 cannot be run", target="top")
    assert failure_message(outcome) == (
        "allo-lsp: [top] error: python3.9 cannot be run",
        ("Open Settings", "Select Interpreter"),
    )


def test_a_deadlock_at_each_blocked_put_and_get():
    blocked = {"line": 7, "pe": "producer_0", "op": "put", "stream": "pipe", "occupancy": 2, "depth": 2}
    outcome = JobResult("failed", "deadlock", "deadlock", details={"blocked": [blocked, {"line": None}]})
    assert problems(outcome) == [(6, 8, "deadlock", Severity.ERROR)]
    assert failure_message(outcome) is None


def test_a_disagreement_of_the_two_executors_warns_on_the_target():
    outcome = JobResult("passed", details={"differential": {"max_abs_diff": {"A": 0.5, "B": 1e-9}}})
    assert problems(outcome) == [(1, 0, "differential", Severity.WARNING)]


def test_a_line_of_another_file_is_left_out():
    assert problems(JobResult("failed", "assertion", "boom", line=400)) == []
    assert problems(JobResult("passed")) == []


def test_the_lens_of_a_job_that_ended():
    assert (
        lens_title_after("▶ Simulate", "simulate", JobResult("passed", duration_s=1.42)) == "▶ Simulate: ✓ passed 1.4 s"
    )
    assert lens_title_after("▶ Run", "run", JobResult("failed", "assertion", line=27)) == "▶ Run: ✗ assertion line 27"
    assert lens_title_after("▶ Run", "run", JobResult("timeout")) == "▶ Run: ⏱ timeout"
    report = {"latency": {"worst": 1208}, "interval": {"max": 1003}}
    assert lens_title_after("⚙ Synthesize", "synthesize", JobResult("passed", details={"report": report})) == (
        "⚙ 1,208 cycles · II 1,003"
    )


def left(unread: int, puts: int = 8) -> dict:
    """A reference run's statistics of `top`: `pipe` (line 3) ended with `unread` elements in it."""
    pipe = {"line": 3, "depth": 2, "fifos": 1, "puts": puts, "gets": puts - unread, "leftover": unread}
    return {"fifo_statistics": [{"region": "top", "streams": {"pipe": pipe}}]}


def test_the_lens_names_the_backend_that_ran_a_simulation_or_a_test():
    passed = JobResult("passed", duration_s=0.21, backend="reference")
    assert lens_title_after("▶ Simulate", "simulate", passed) == "▶ Simulate: ✓ passed 0.2 s · reference"
    failed = JobResult("failed", "assertion", line=27, backend="allo")
    assert lens_title_after("▶ Run", "run", failed) == "▶ Run: ✗ assertion line 27 · allo"
    # MLIR and synthesis jobs have one backend only: naming it says nothing.
    assert lens_title_after("MLIR", "mlir", JobResult("passed", backend="allo")) == "MLIR: ✓ passed"


def test_a_run_that_passed_with_elements_left_unread_warns_in_the_lens_and_on_the_stream():
    outcome = JobResult("passed", duration_s=1.42, backend="reference", target="top", details=left(2))
    assert lens_title_after("▶ Simulate", "simulate", outcome) == (
        "▶ Simulate: ⚠ passed, 2 elements left unread in pipe · 1.4 s · reference"
    )
    assert problems(outcome) == [(2, 4, "fifo_leftover", Severity.WARNING)]
    (found,) = [f for f in findings(outcome, analyze(DESIGN).model, "top") if f[2] == "fifo_leftover"]
    assert found[1].startswith("2 elements left unread in `pipe` when the run completed (8 puts, 6 gets)")
    assert "leftover data" in found[1] and "reference executor" in found[1]


def test_a_run_that_left_every_fifo_empty_has_no_leftover():
    outcome = JobResult("passed", duration_s=1.42, backend="reference", target="top", details=left(0))
    assert lens_title_after("▶ Simulate", "simulate", outcome) == "▶ Simulate: ✓ passed 1.4 s · reference"
    assert problems(outcome) == []


def test_a_failed_test_that_left_elements_unread_says_so_on_the_stream_too():
    outcome = JobResult("failed", "assertion", "boom", line=7, backend="reference", target="top", details=left(4))
    assert problems(outcome) == [(6, 8, "assertion", Severity.ERROR), (2, 4, "fifo_leftover", Severity.WARNING)]


def test_a_deadlock_that_larger_fifos_leave_unread_is_an_imbalance_on_the_stream_not_a_depth():
    sizing = {
        "kind": "imbalance",
        "completes_at": 8,
        "leftover": [{"stream": "pipe", "line": 3, "elements": 8}],
        "message": "with every FIFO 8 deep the run completes but leaves 8 elements unread in `pipe`: ...",
    }
    outcome = JobResult("failed", "deadlock", "deadlock", line=7, backend="reference", details={"fifo_sizing": sizing})
    assert problems(outcome) == [(2, 4, "fifo_leftover", Severity.ERROR)]
    (found,) = findings(outcome, analyze(DESIGN).model, "top")
    assert found[1] == (
        "deadlock: not a FIFO depth problem: with every FIFO 8 deep the run completes but leaves 8 elements "
        "unread in `pipe`: ..."
    )
