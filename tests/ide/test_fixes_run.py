"""Every fix tested by running the fixed design (Ruff's rule: a fix never makes code worse).

Each fixture of `fixes/` and each example with a fix is fixed as `allo-lsp check --fix` does
(safe fixes, then safe and unsafe ones), analysed again, and, where it has a test function,
that test is run on the reference executor by `allo-lsp run FILE::TEST --backend reference`
(a real process). A fixed design that no longer passes its own test is a failed test; so is one
with a problem its text did not have before (ADF900 included), beyond what its `New:` line
allows. A design that passed its test passes it after the fixes; after the unsafe ones, so does
every fixture, and every example left with no problem that has no fix (a pitfall whose bug no
fix mends, a deadlock or swapped arguments, fails before and after). The quick fix each fixture
names (its `Fix:` line) is run too, unless it is display-only (its title says what it assumed).
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from allo_lsp.analysis import Options, analyze
from allo_lsp.ide.code_actions import FIXES, code_actions
from allo_lsp.ide.fix_all import apply_edits, fix_all
from paths import EXAMPLES
from test_code_actions import EXAMPLE_FIXES, fix

HERE = Path(__file__).parent
FIXTURES = sorted((HERE / "fixes").glob("*.py"))
DESIGNS = FIXTURES + sorted(EXAMPLES.glob("pitfall_*.py"))
_TEST = re.compile(r"^def (test_\w+)\(\):", re.M)
_NEW = re.compile(r"^New: (.+)$", re.M)
_FIX = re.compile(r"^Fix: (ADF\d{3}) (.+)$", re.M)


def run_test(path: Path, test: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "run", f"{path}::{test}", "--backend", "reference", "--emulate", "csim"]
        + ["--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return json.loads(out.stdout)


def allowed_new(text: str) -> set[str]:
    found = _NEW.search(text)
    return {c.strip() for c in found.group(1).split(",")} if found else set()


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("path", DESIGNS, ids=lambda p: p.stem)
def test_the_fixed_design_passes_its_own_test(tmp_path, path, unsafe):
    text = path.read_text()
    fixed = fix_all(text, Options(), unsafe=unsafe)
    before = {p.code for p in analyze(text).problems}
    after = {p.code for p in analyze(fixed.text).problems}
    assert after == {p.code for p in fixed.analysis.problems}  # what fix-all saw last is the text's
    assert "ADF900" not in after - before
    assert after - before <= allowed_new(text), fixed.text
    tests = _TEST.findall(text)
    if not tests:
        return
    original = tmp_path / "before" / path.name
    changed = tmp_path / "after" / path.name
    for where, content in ((original, text), (changed, fixed.text)):
        where.parent.mkdir()
        where.write_text(content)
    unfixable = {p.code for p in fixed.analysis.problems if p.code not in FIXES}
    must_pass = unsafe and (path in FIXTURES or not unfixable)
    for test in tests:
        result = run_test(changed, test)
        if must_pass or run_test(original, test)["status"] == "passed":
            assert result["status"] == "passed", (result["message"], fixed.text)


def quick_fixed(text: str) -> str | None:
    """The text after the fixture's `Fix:` action, None when that action is display-only."""
    code, title = _FIX.search(text).groups()
    analysis = analyze(text)
    problem = next(p for p in analysis.problems if p.code == code)
    (action,) = [a for a in code_actions(text, analysis, problem.range) if a.title == title]
    return apply_edits(text, list(action.edits)) if action.preferred else None


@pytest.mark.parametrize("path", [p for p in FIXTURES if _TEST.search(p.read_text())], ids=lambda p: p.stem)
def test_the_quick_fixed_design_passes_its_own_test(tmp_path, path):
    text = path.read_text()
    fixed = quick_fixed(text)
    if fixed is None:
        return
    original, changed = tmp_path / "before.py", tmp_path / "after.py"
    original.write_text(text)
    changed.write_text(fixed)
    for test in _TEST.findall(text):
        if run_test(original, test)["status"] == "passed":
            result = run_test(changed, test)
            assert result["status"] == "passed", (result["message"], fixed)


@pytest.mark.parametrize("example", EXAMPLE_FIXES, ids=lambda e: e[0])
def test_each_example_passes_its_own_test_after_its_fix(tmp_path, example):
    name, code, title, _ = example
    text = (EXAMPLES / f"{name}.py").read_text()
    changed = tmp_path / f"{name}.py"
    changed.write_text(fix(text, code, title))  # clean after it: test_code_actions checks that
    for test in _TEST.findall(text):
        result = run_test(changed, test)
        assert result["status"] == "passed", result["message"]
