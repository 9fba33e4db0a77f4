"""Every fix at once (`--fix`, the editor's fix-all) and "Disable CODE for this line": the text
before, the text after; and `check --fix --unsafe-fixes` on copies of the fixtures whose old
fixes made the design worse."""

import subprocess
import sys
from pathlib import Path

from allo_lsp.analysis import Options, ParseCache, analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.code_actions import disable_actions
from allo_lsp.ide.fix_all import KIND, _one_pass, apply_edits, changed_span, fix_all, fix_all_actions, fixable, wanted
from paths import EXAMPLES

MAPPING = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # ADF011: a safe fix
SCALAR = (EXAMPLES / "pitfall_bare_scalar.py").read_text()  # ADF002: an unsafe fix (the interface changes)


def test_only_safe_fixes_unless_asked():
    assert fixable(MAPPING, analyze(MAPPING)).safe == 1 and fixable(SCALAR, analyze(SCALAR)).unsafe == 1
    fixed = fix_all(MAPPING, Options())
    assert fixed.applied == 1 and fixed.analysis.problems == []
    assert fixed.text == MAPPING.replace(
        "    @df.kernel(args=[A], mapping=[1])", "    @df.kernel(mapping=[1], args=[A])"
    )
    untouched = fix_all(SCALAR, Options())
    assert (untouched.applied, untouched.text) == (0, SCALAR)
    forced = fix_all(SCALAR, Options(), unsafe=True)
    assert forced.applied == 1 and forced.analysis.problems == []
    assert "def top(A: int32[M], n: int32[1], B: int32[M]):" in forced.text
    assert "mod(A, np.array([5], dtype=np.int32), B)" in forced.text


def test_fixes_of_one_file_are_applied_together_and_again_until_none_is_left():
    # Two kernels with mapping= second: one pass fixes both (their edits do not overlap).
    text = MAPPING.replace("@df.kernel(mapping=[1], args=[B])", "@df.kernel(args=[B], mapping=[1])")
    assert [p.code for p in analyze(text).problems] == ["ADF011", "ADF011"]
    fixed = fix_all(text, Options())
    assert fixed.applied == 2 and fixed.analysis.problems == []
    assert "mapping=[1], args=[A]" in fixed.text and "mapping=[1], args=[B]" in fixed.text


def test_a_hidden_problem_is_not_fixed():
    text = MAPPING.replace("mapping=[1])\n    def producer", "mapping=[1])  # noqa: ADF011\n    def producer")
    assert text != MAPPING
    assert fix_all(text, Options()).text == text


def test_the_fix_all_action_is_offered_only_to_a_request_for_its_kind():
    analysis = analyze(MAPPING)
    assert fix_all_actions(MAPPING, Options(), analysis, None) == []  # the lightbulb's request
    assert fix_all_actions(MAPPING, Options(), analysis, ["quickfix"]) == []
    for only in (["source"], ["source.fixAll"], [KIND]):
        (action,) = fix_all_actions(MAPPING, Options(), analysis, only)
        assert action.kind == KIND
        assert apply_edits(MAPPING, list(action.edits)) == fix_all(MAPPING, Options()).text
    assert fix_all_actions(SCALAR, Options(), analyze(SCALAR), ["source.fixAll"]) == []  # nothing safe to do


def test_kinds_are_asked_by_prefix():
    assert wanted("source.fixAll.allo-lsp", ["source"]) and wanted("quickfix", None)
    assert not wanted("source.fixAll.allo-lsp", ["source.fix"]) and not wanted("quickfix", ["source"])


def test_the_changed_span_is_one_edit_between_the_common_ends():
    old, new = "a\nb\nc\n", "a\nB\nb2\nc\n"
    edit = changed_span(old, new)
    assert apply_edits(old, [edit]) == new
    assert edit.range == Range(Position(1, 0), Position(1, 1))
    assert apply_edits("x", [changed_span("x", "x\ny\n")]) == "x\ny\n"


def disable(text: str, code: str) -> str:
    analysis = analyze(text)
    problem = next(p for p in analysis.problems if p.code == code)
    (action,) = [a for a in disable_actions(text, analysis, problem.range) if a.codes == (code,)]
    assert action.title == f"Disable {code} for this line" and action.kind == "quickfix"
    after = apply_edits(text, list(action.edits))
    assert code not in [p.code for p in analyze(after).problems]
    return after


def test_disable_adds_the_noqa_comment_at_the_end_of_the_line():
    after = disable(MAPPING, "ADF011")
    assert "    @df.kernel(args=[A], mapping=[1])  # noqa: ADF011\n" in after


def test_disable_adds_the_code_to_a_noqa_comment_there():
    text = MAPPING.replace("mapping=[1])\n    def producer", "mapping=[1])  # noqa: E501\n    def producer")
    assert "# noqa: E501, ADF011\n" in disable(text, "ADF011")


def test_disable_keeps_the_lines_comment_after_the_directive():
    text = MAPPING.replace("mapping=[1])\n    def producer", "mapping=[1])  # order pinned\n    def producer")
    assert "mapping=[1])  # noqa: ADF011 # order pinned\n" in disable(text, "ADF011")


def test_no_disable_action_on_a_syntax_error():
    text = MAPPING + "\ndef broken(:\n"
    analysis = analyze(text)
    everywhere = Range(Position(0, 0), Position(len(text.split("\n")), 0))
    assert [a.codes for a in disable_actions(text, analysis, everywhere)] == [("ADF011",)]


def test_passes_with_the_documents_parse_cache_give_what_passes_without_it():
    text = MAPPING.replace("@df.kernel(mapping=[1], args=[B])", "@df.kernel(args=[B], mapping=[1])")
    cache = ParseCache()
    analysis = analyze(text, Options(), cache)
    with_cache = fix_all(text, Options(), analysis=analysis, cache=cache)
    without = fix_all(text, Options())
    assert with_cache.applied == 2 and (with_cache.text, with_cache.applied) == (without.text, without.applied)
    assert with_cache.analysis.problems == without.analysis.problems == []
    assert cache.lines == text.split("\n")  # the document's cache is still its text's: the passes had a copy


# -- `allo-lsp check --fix --unsafe-fixes` on a copy: fixes that never make code worse -----------

FIXES = Path(__file__).parent / "fixes"


def check(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def fixed_copy(tmp_path, fixture: str) -> tuple[str, str, subprocess.CompletedProcess]:
    path = tmp_path / f"{fixture}.py"
    before = (FIXES / f"{fixture}.py").read_text()
    path.write_text(before)
    out = check(path, "--fix", "--unsafe-fixes")
    return before, path.read_text(), out


def test_the_reorder_leaves_a_call_already_in_the_new_order_and_the_scalar_fix_follows_it(tmp_path):
    # The old fix-all wrote `B: float32[N][1]` (the scalar's [1] where the reorder moved B) and
    # `mod(0.5, B, A)` (a call already in the new order permuted), and check then said nothing.
    _, after, out = fixed_copy(tmp_path, "ADF003_call_already_in_the_new_order")
    assert out.returncode == 0, out.stdout
    assert "def pipeline(A: float32[N], scale: float32[1], B: float32[N]):" in after
    assert "    mod(A, np.array([0.5], dtype=np.float32), B)\n" in after
    again = check(tmp_path / "ADF003_call_already_in_the_new_order.py")
    assert again.returncode == 0 and " ADF" not in again.stdout, again.stdout


def test_a_call_whose_order_cannot_be_told_is_left_and_its_problem_stays(tmp_path):
    before, after, out = fixed_copy(tmp_path, "ADF003_call_that_cannot_be_told")
    assert after == before  # the old fix-all permuted the call, as if written for the declaration order
    assert out.returncode == 1 and ": ADF003 warning:" in out.stdout, out.stdout


def test_two_regions_each_reordered_with_their_own_calls(tmp_path):
    _, after, out = fixed_copy(tmp_path, "ADF003_two_regions_in_one_file")
    assert out.returncode == 0, out.stdout
    assert "def first(A: int32[N], n: int32[1], B: int32[N]):" in after
    assert "def second(P: int32[N], m: int32[1], Q: int32[N]):" in after
    assert "    mod1(A, n, B)\n    mod2(P, m, Q)\n" in after  # the second was in the new order already


def test_a_reorder_and_a_scalar_fix_of_one_def_wait_for_each_other():
    text = (FIXES / "ADF003_scalar_and_order_hazard.py").read_text()
    analysis = analyze(text)
    one_round = fix_all(text, Options(), unsafe=True, analysis=analysis)
    assert "def top(A: float32[N], scale: float32[1], B: float32[N]):" in one_round.text
    assert one_round.applied == 2 and one_round.analysis.problems == []


def test_fixes_that_undo_each_other_stop_at_a_text_seen_before():
    # ADF005's order (A, C) is one older builds cannot compile: ADF003's fix would undo it.
    text = (FIXES / "ADF005_older_builds_cannot_follow.py").read_text()
    fixed = fix_all(text, Options(), unsafe=True)
    assert fixed.applied == 1 and "def top(A: int32[M], C: int32[M]):" in fixed.text


def test_a_round_takes_fixes_of_different_kernels_and_defers_a_second_fix_of_one_def():
    two_kernels = MAPPING.replace("@df.kernel(mapping=[1], args=[B])", "@df.kernel(args=[B], mapping=[1])")
    assert _one_pass(two_kernels, analyze(two_kernels), unsafe=False)[1] == 2  # one round, as before
    text = (FIXES / "ADF003_scalar_and_order_hazard.py").read_text()
    assert {p.code for p in analyze(text).problems} >= {"ADF002", "ADF003"}
    assert _one_pass(text, analyze(text), unsafe=True)[1] == 1  # the reorder; the scalar fix waits
