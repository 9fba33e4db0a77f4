"""Issue 13 item 11: nesting is judged as CPython judges it. What CPython accepts is analysed;
what it refuses is an ADF900 at its line, however the text got there (a thousand unclosed
brackets on one over-long line included), and `check` then exits non-zero."""

import subprocess
import sys

import pytest
from allo_lsp.analysis import analyze
from paths import EXAMPLES

BASE = (EXAMPLES / "producer_consumer.py").read_text()
FIRST = len(BASE.split("\n"))  # 0-based line of what the tests append


def syntax_errors(line: str) -> list[tuple[int, str]]:
    return [(p.range.start.line, p.message) for p in analyze(BASE + "\n" + line + "\n").problems]


@pytest.mark.parametrize("depth", [150, 199, 200])
@pytest.mark.parametrize("open_, close", [("[", "]"), ("(", ")"), ("{", "}")])
def test_balanced_nesting_cpython_accepts_is_analysed(depth, open_, close):
    text = BASE + "\ny = " + open_ * depth + close * depth + "\n"
    compile(text, "<nested>", "exec")  # CPython accepts it
    analysis = analyze(text)
    assert analysis.problems == []
    assert [r.name for r in analysis.model.regions] == [r.name for r in analyze(BASE).model.regions]


@pytest.mark.parametrize(
    "line",
    [
        "y = " + "[" * 201 + "]" * 201,  # one level past CPython's limit
        "y = " + "(" * 500,  # 500 deep, unclosed
        "y = " + "(" * 500 + ")" * 500,  # 500 deep, balanced, over 1,000 characters
        "y = " + "[" * 1000,  # 1,000 unclosed brackets on one long line
        "y = [\n" + "[\n" * 1000,  # ... and over many lines
    ],
    ids=["201", "500 unclosed", "500 balanced long line", "1000 unclosed long line", "1000 lines"],
)
def test_nesting_cpython_refuses_is_adf900_at_its_line(line):
    with pytest.raises(SyntaxError, match="too many nested parentheses"):
        compile(BASE + "\n" + line + "\n", "<nested>", "exec")
    errors = syntax_errors(line)
    assert errors, "no diagnostic"
    assert any(FIRST <= n <= FIRST + line.count("\n") and "too many nested parentheses" in m for n, m in errors)


def test_brackets_in_strings_and_comments_do_not_count():
    text = BASE + '\ns = "' + "[" * 300 + '"  # ' + "(" * 300 + '\nt = """\n' + "{" * 300 + '\n"""\n'
    assert analyze(text).problems == []


def test_check_exits_non_zero_on_a_thousand_unclosed_brackets(tmp_path):
    path = tmp_path / "deep.py"
    path.write_text(BASE + "\ny = " + "[" * 1000 + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"{path}:{FIRST + 1}:205: ADF900 error: syntax error: too many nested parentheses" in out.stdout


def test_a_file_past_the_size_bound_is_analysed_partially_with_a_notice():
    # Over 512 KiB of text, quick to analyse: one region, then long comment lines, then a
    # region with a missing mapping that must not be reported (it is past the bound).
    filler = ("# " + "x" * 998 + "\n") * 600
    late = "\n@df.region()\ndef late(C: int32[8]):\n    @df.kernel(args=[C])\n    def k(local_C: int32[8]):\n        pass\n"
    text = BASE + filler + late
    total_lines = len(text.split("\n"))
    # The cut falls before the last statement that may run into the filler: the `__main__`
    # block (a comment at column 0 does not end a block).
    kept = BASE.split("\n").index('if __name__ == "__main__":')
    analysis = analyze(text)
    (notice,) = analysis.problems
    assert notice.code == "ADF901" and notice.severity.label == "information"
    assert notice.message.startswith(f"Only the first {kept:,} lines")
    assert f"it has {total_lines:,} lines" in notice.message
    assert notice.range.start.line == kept
    assert [r.name for r in analysis.model.regions] == [r.name for r in analyze(BASE).model.regions]
    assert analysis.model.partial is not None and analysis.model.partial.total_chars == len(text)
