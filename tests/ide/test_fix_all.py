"""Every fix at once (`--fix`, the editor's fix-all) and "Disable CODE for this line": the text
before, the text after."""

from allo_lsp.analysis import Options, ParseCache, analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.code_actions import disable_actions
from allo_lsp.ide.fix_all import KIND, apply_edits, changed_span, fix_all, fix_all_actions, fixable, wanted
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
