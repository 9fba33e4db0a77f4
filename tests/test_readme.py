"""The README's promises: its rules table is generated from the rule docstrings, and CI runs its
test command."""

from allo_lsp.analysis.rules import rules_markdown
from paths import ROOT

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def test_readme_rules_table_is_generated():
    readme = (ROOT / "README.md").read_text()
    table = readme.split(START, 1)[1].split(END, 1)[0].strip()
    assert table == rules_markdown(), "regenerate with: .venv/bin/allo-lsp rules --format markdown"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "./dev.sh test" in readme and "./dev.sh demo" in readme
    assert "./dev.sh test" in (ROOT / ".ci" / "run").read_text()
