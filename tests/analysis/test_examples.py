"""The bundled examples: clean designs are clean, each pitfall is flagged where its docstring says."""

from pathlib import Path

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.check import CheckedFile, to_text
from expectations import actual, expected_from_docstring
from paths import EXAMPLES
from snapshot import assert_snapshot

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.py"))
SNAPSHOTS = Path(__file__).parent / "snapshots" / "examples"


def test_there_are_enough_examples():
    assert len([p for p in EXAMPLE_FILES if not p.name.startswith("pitfall_")]) >= 5
    assert len([p for p in EXAMPLE_FILES if p.name.startswith("pitfall_")]) >= 5


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_example(path):
    text = path.read_text()
    analysis = analyze(text)
    if path.name.startswith("pitfall_"):
        assert analysis.problems, "a pitfall example must be flagged"
        assert actual(analysis.problems) == expected_from_docstring(text)
    else:
        assert analysis.problems == []
        assert analysis.model.regions, "a clean example must hold a region"
    rendered = to_text([CheckedFile(f"examples/{path.name}", analysis)])
    assert_snapshot(SNAPSHOTS / f"{path.stem}.txt", rendered + "\n")
