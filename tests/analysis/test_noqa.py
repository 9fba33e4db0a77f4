"""Suppression comments as Ruff reads them: `# noqa: CODE` per line, a bare `# noqa`, and the
file-level `# allo-lsp: noqa`, on a design with one ADF011 (line 25) and nothing else."""

import time

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.noqa import Noqa, comments
from paths import EXAMPLES

DESIGN = (EXAMPLES / "pitfall_mapping_order.py").read_text()
LINE = DESIGN.split("\n").index("    @df.kernel(args=[A], mapping=[1])")


def codes(text: str) -> list[tuple[str, int]]:
    return [(p.code, p.range.start.line) for p in analyze(text).problems]


def with_line(suffix: str, line: int = LINE) -> str:
    lines = DESIGN.split("\n")
    lines[line] += suffix
    return "\n".join(lines)


def test_the_design_reports_one_problem_there():
    assert codes(DESIGN) == [("ADF011", LINE)]


def test_a_noqa_comment_with_the_code_hides_it_on_its_line():
    assert codes(with_line("  # noqa: ADF011")) == []
    assert codes(with_line("  # NOQA:ADF011")) == []
    assert codes(with_line("  # noqa: E501, ADF011  because the order is pinned")) == []


def test_a_bare_noqa_hides_every_code_of_its_line():
    assert codes(with_line("  # noqa")) == []


def test_another_code_or_another_line_hides_nothing():
    assert codes(with_line("  # noqa: ADF005")) == [("ADF011", LINE)]
    assert codes(with_line("  # noqa: E501")) == [("ADF011", LINE)]  # Ruff's code: left to Ruff
    assert codes(with_line("  # noqa", LINE + 1)) == [("ADF011", LINE)]
    assert codes(with_line("  # noqaADF011")) == [("ADF011", LINE)]


def test_a_file_level_directive_hides_the_code_everywhere():
    assert codes("# allo-lsp: noqa: ADF011\n" + DESIGN) == []
    assert codes("# allo-lsp: noqa\n" + DESIGN) == []
    assert codes("# allo-lsp: noqa: ADF005\n" + DESIGN) == [("ADF011", LINE + 1)]


def test_a_file_level_directive_after_code_on_its_line_is_not_one():
    # As Ruff: the file-level form stands on a line of its own; after code it is a line comment
    # (which hides nothing here, the codes being for another line).
    assert codes("M2 = 1  # allo-lsp: noqa: ADF011\n" + DESIGN) == [("ADF011", LINE + 1)]


def test_noqa_inside_a_string_is_text():
    assert codes('NOTE = "# allo-lsp: noqa"\n' + DESIGN) == [("ADF011", LINE + 1)]
    assert codes('NOTE = """\n# allo-lsp: noqa\n"""\n' + DESIGN) == [("ADF011", LINE + 3)]


def test_a_syntax_error_is_never_hidden():
    text = "# allo-lsp: noqa\n" + DESIGN + "\ndef broken(:  # noqa\n"
    assert [c for c, _ in codes(text)] == ["ADF900"]


def test_comments_skip_strings_across_lines():
    text = 'a = """x # not\n# still a string"""  # one\ns = "#" + \'#\'  # two\n    # three\n'
    found = [(c.line, c.column, c.text, c.own_line) for c in comments(text)]
    assert found == [(1, 21, "# one", False), (2, 15, "# two", False), (3, 4, "# three", True)]


def test_an_unclosed_string_ends_with_its_line_and_a_backslash_newline_continues_one():
    # Half-typed text: the comment on the next line is still one (the old single expression took
    # the rest of the file for a string).
    assert [c.text for c in comments('x = "half typed # not\ny = 1  # real\n')] == ["# real"]
    assert [c.text for c in comments('x = "a\\\nb # not"  # real\n')] == ["# real"]
    assert comments('s = "ends in a backslash\\') == [] and comments("'''never closed # not") == []


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: ADF005" + " " * 60_000,
        "# noqa: ADF005" + " " * 60_000 + ",",
        "# noqa: ADF005," + " " * 60_000 + "x",
        "# allo-lsp: noqa: ADF005" + " " * 60_000 + ",",
        "#" + " " * 60_000 + "noqa",
        "# noqa: " + "ADF005 " * 10_000 + " " * 30_000 + ",",
    ],
)
def test_a_noqa_comment_followed_by_a_long_run_of_spaces_is_read_in_linear_time(comment):
    text = f"x = 1  {comment}\n" if not comment.startswith("# allo-lsp") else f"{comment}\nx = 1\n"
    started = time.monotonic()
    noqa = Noqa.of(text)
    assert time.monotonic() - started < 2  # 34 s before for 60,000 spaces: `\s*,?\s*` split them every way
    assert noqa.lines or noqa.file != frozenset()
