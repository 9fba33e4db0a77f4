"""One table-driven test over (rule, fixture): `fixtures/<CODE>.py` says in its docstring where the
rule must fire, and near-misses where it must not (and, on an `Options:` line, analysis settings
other than the defaults); the snapshot pins messages and ranges."""

from pathlib import Path

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.rules import RULES
from expectations import actual, expected_from_docstring, options_from_docstring
from snapshot import assert_snapshot, render_problems

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
# No design text makes these: ADF902 is a rule that raised (tests/analysis/test_rule_isolation.py).
NOT_FROM_TEXT = {"ADF902"}


@pytest.mark.parametrize("code", [r.code for r in RULES if r.code not in NOT_FROM_TEXT])
def test_rule_fixture(code):
    path = FIXTURES / f"{code}.py"
    text = path.read_text()
    expected = expected_from_docstring(text)
    assert any(c == code for _, c in expected), f"{path.name} must say where {code} fires"
    problems = analyze(text, options_from_docstring(text)).problems
    assert actual(problems) == expected
    assert_snapshot(HERE / "snapshots" / f"{code}.snap", render_problems(path.name, text, problems))


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_documented(rule):
    assert rule.code.startswith("ADF") and rule.name and rule.summary
    for section in ("## What it does", "## Why is this bad?", "## Example"):
        assert section in rule.doc, f"{rule.code} lacks {section!r}"
    assert "```python" in rule.doc


def test_every_code_of_the_table_is_registered():
    assert [r.code for r in RULES] == [
        "ADF001",
        "ADF002",
        "ADF003",
        "ADF004",
        "ADF005",
        "ADF006",
        "ADF007",
        "ADF008",
        "ADF010",
        "ADF011",
        "ADF012",
        "ADF013",
        "ADF014",
        "ADF015",
        "ADF016",
        "ADF017",
        "ADF018",
        "ADF019",
        "ADF020",
        "ADF021",
        "ADF022",
        "ADF023",
        "ADF024",
        "ADF025",
        "ADF026",
        "ADF027",
        "ADF030",
        "ADF040",
        "ADF050",
        "ADF051",
        "ADF052",
        "ADF060",
        "ADF061",
        "ADF070",
        "ADF080",
        "ADF081",
        "ADF082",
        "ADF083",
        "ADF084",
        "ADF085",
        "ADF086",
        "ADF087",
        "ADF088",
        "ADF089",
        "ADF090",
        "ADF091",
        "ADF092",
        "ADF093",
        "ADF094",
        "ADF095",
        "ADF096",
        "ADF900",
        "ADF901",
        "ADF902",
    ]
