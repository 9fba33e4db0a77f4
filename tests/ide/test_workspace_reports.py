"""What workspace diagnostics keep of each design (its problems and the part of their lines their
columns need, not its text) and what they read (a regular file under the bound, every time)
(issue 25, item 8)."""

import os
import subprocess
import sys
from dataclasses import fields

import pytest
from allo_lsp.analysis import Options
from allo_lsp.analysis.model import Range
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.lsp.convert import Converter
from allo_lsp.session.workspace_reports import FileReport, read_and_analyse
from paths import EXAMPLES
from pygls.workspace import PositionCodec

DESIGN = (EXAMPLES / "pitfall_mapping_order.py").read_text()


def kept_characters(value) -> int:
    """The characters of every string `value` holds, however deep."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(kept_characters(k) + kept_characters(v) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return sum(kept_characters(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return sum(kept_characters(getattr(value, f.name)) for f in fields(value))
    return 0


def test_a_report_keeps_the_problems_not_the_text(tmp_path):
    design = tmp_path / "design.py"
    design.write_text(DESIGN + ("#" + "x" * 999 + "\n") * 1000)  # a megabyte
    report = read_and_analyse(design, Options())
    assert report is not None and "ADF011" in {p.code for p in report.problems}
    messages = sum(kept_characters(p) for p in report.problems)
    assert kept_characters(report) - messages < 200  # the text whole before: 1,000,000 characters


def test_the_kept_lines_convert_columns_as_the_text_does():
    text = "x = 1\n😀😀 = f(😀, 2)\n\n    é = 😀 + y  # noqa\nlast = 1\n"
    problems = [
        Problem("ADF001", Severity.ERROR, Range.of(1, 7, 1, 9), "one"),
        Problem("ADF002", Severity.WARNING, Range.of(1, 3, 3, 9), "across lines"),
        Problem("ADF003", Severity.HINT, Range.of(3, 4, 3, 5), "é"),
    ]
    report = FileReport.of((1, 1), text, problems)
    whole, kept = Converter(PositionCodec(), text.split("\n")), Converter(PositionCodec(), report.text().split("\n"))
    assert [kept.diagnostic(p) for p in problems] == [whole.diagnostic(p) for p in problems]
    assert set(report.lines) == {1, 3}


def test_a_design_swapped_for_a_fifo_is_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "design.py")
    assert read_and_analyse(tmp_path / "design.py", Options()) is None


def test_a_design_larger_than_the_bound_is_not_read(tmp_path):
    design = tmp_path / "design.py"
    design.write_text(DESIGN + "#" * (2 * 1024 * 1024))
    assert read_and_analyse(design, Options()) is None


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom"])
def test_a_design_swapped_for_a_link_to_a_device_is_refused_at_once(tmp_path, target):
    os.symlink(target, tmp_path / "design.py")
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
        "from pathlib import Path; from allo_lsp.analysis import Options;"
        "from allo_lsp.session.workspace_reports import read_and_analyse;"
        "print(read_and_analyse(Path(sys.argv[1]), Options()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "design.py")], capture_output=True, text=True, timeout=30
    )
    assert (done.returncode, done.stdout.strip()) == (0, "None"), done.stderr[-1000:]  # 3.7 GB in 8 s before
