"""What a document shows of its jobs, without a client: kept per job, replaced by the job's next
run, cleared by the edits that invalidate it, moved with the lines otherwise."""

from allo_lsp.analysis import analyze
from allo_lsp.ide.job_outcomes import JobOutcomes
from allo_lsp.protocol.messages import FAILED, PASSED, SIMULATE, SYNTHESIZE, JobResult
from paths import EXAMPLES

TEXT = (
    (EXAMPLES / "producer_consumer.py")
    .read_text()
    .replace(
        '\n\nif __name__ == "__main__":\n    test_producer_consumer()\n',
        '\n\ndef test_other():\n    mod = df.build(top, target="simulator")\n',
    )
)


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n")) if needle in line)


def _kept(text: str = TEXT) -> JobOutcomes:
    """A failed simulation of `top` (at its `pipe.put` line) and a passed synthesis, on `text`."""
    kept = JobOutcomes()
    model = analyze(text).model
    kept.record(("top", SIMULATE), JobResult(FAILED, "assertion", "no", line=_line(text, "pipe.put(") + 1), model, text)
    kept.record(("top", SYNTHESIZE), JobResult(PASSED), model, text)
    return kept


def test_each_job_keeps_its_own_outcome_and_a_rerun_replaces_only_its_own():
    kept = _kept()
    assert set(kept.outcomes(TEXT)) == {("top", SIMULATE), ("top", SYNTHESIZE)}
    kept.record(("top", SIMULATE), JobResult(PASSED), analyze(TEXT).model, TEXT)
    assert [o.status for o in kept.outcomes(TEXT).values()] == [PASSED, PASSED]
    assert kept.problems(TEXT) == []


def test_an_edit_of_a_definition_the_job_does_not_reach_keeps_it_and_moves_its_problem():
    kept = _kept()
    edited = TEXT.replace("def test_other():\n", "def test_other():\n    x = 1\n")
    assert edited != TEXT
    (problem,) = kept.problems(edited)
    assert problem.problem.range.start.line == _line(edited, "pipe.put(")
    assert set(kept.outcomes(edited)) == {("top", SIMULATE), ("top", SYNTHESIZE)}


def test_an_edit_of_the_region_or_of_module_level_code_clears_it():
    for edited in (
        TEXT.replace("pipe: Stream[int32, 4]", "pipe: Stream[int32, 8]"),
        TEXT.replace("M, N = 8, 8", "M, N = 8, 4"),
        TEXT.replace("import allo\n", "import allo\nimport os\n"),
    ):
        kept = _kept()
        assert edited != TEXT
        assert kept.outcomes(edited) == {} and kept.problems(edited) == []


def test_an_edit_of_a_test_that_builds_the_region_does_not_clear_the_region_but_its_own_run():
    text = TEXT
    kept = JobOutcomes()
    model = analyze(text).model
    kept.record(("top", SIMULATE), JobResult(PASSED), model, text)
    kept.record(("test_producer_consumer", "run"), JobResult(PASSED), model, text)
    edited = text.replace("    mod(A, n, B)\n", "    mod(A, n, B)\n    print(B)\n")
    assert edited != text
    assert set(kept.outcomes(edited)) == {("top", SIMULATE)}
