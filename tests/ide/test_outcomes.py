"""A finished job in editor terms: where its problems are, without a server."""

from allo_lsp.analysis import analyze
from allo_lsp.analysis.problems import Severity
from allo_lsp.ide.outcomes import failed_without_line, findings, lens_title_after, placed, summary, target_line
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
    assert not failed_without_line(outcome)
    assert summary(outcome) == "[top] failed: boom"


def test_a_failure_without_a_line_is_on_the_target_and_told_in_a_message():
    outcome = JobResult("error", "crash", "the runner died", target="test_top")
    assert problems(outcome, "test_top") == [(9, 0, "crash", Severity.ERROR)]
    assert failed_without_line(outcome)


def test_a_deadlock_at_each_blocked_put_and_get():
    blocked = {"line": 7, "pe": "producer_0", "op": "put", "stream": "pipe", "occupancy": 2, "depth": 2}
    outcome = JobResult("failed", "deadlock", "deadlock", details={"blocked": [blocked, {"line": None}]})
    assert problems(outcome) == [(6, 8, "deadlock", Severity.ERROR)]
    assert not failed_without_line(outcome)


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
