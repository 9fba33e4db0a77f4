"""`[tool.allo-lsp]` read on every supported Python: the standard library's tomllib from 3.11,
tomli on 3.10, and a warning on the table when neither is there (never silently the defaults).
Python 3.10 is simulated: `tomllib` made unimportable, `tomli` present or not."""

import sys
import types

import pytest

try:  # the real parser, whichever this Python has, behind the simulated modules
    import tomllib
except ImportError:
    import tomli as tomllib
from allo_lsp.analysis.config import parse_config
from allo_lsp.analysis.problems import Severity

TEXT = '[project]\nname = "x"\n\n[tool.allo-lsp]\nignore = ["ADF006"]\n'


@pytest.fixture
def python_310(monkeypatch):
    """No tomllib, as on Python 3.10 (None in sys.modules: `import tomllib` raises ImportError)."""
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.delitem(sys.modules, "tomli", raising=False)
    return monkeypatch


def test_tomli_is_read_where_tomllib_is_missing(python_310):
    read = []
    tomli = types.ModuleType("tomli")  # tomli is tomllib's code published for 3.10: same API
    tomli.TOMLDecodeError = tomllib.TOMLDecodeError
    tomli.loads = lambda text: read.append(text) or tomllib.loads(text)
    python_310.setitem(sys.modules, "tomli", tomli)

    found, problems = parse_config(TEXT)

    assert read == [TEXT]
    assert problems == []
    assert found is not None and found.ignore == ("ADF006",)


def test_tomli_reports_a_syntax_error_on_its_line(python_310):
    tomli = types.ModuleType("tomli")
    tomli.TOMLDecodeError, tomli.loads = tomllib.TOMLDecodeError, tomllib.loads
    python_310.setitem(sys.modules, "tomli", tomli)

    found, problems = parse_config('[tool.allo-lsp]\nselect = ["ADF0"\nignore = []\n')

    assert found is None
    assert [p.severity for p in problems] == [Severity.ERROR]
    assert problems[0].message.startswith("pyproject.toml is not valid TOML")


def test_without_tomllib_and_tomli_a_warning_on_the_table(python_310):
    python_310.setitem(sys.modules, "tomli", None)

    found, problems = parse_config(TEXT)

    assert found is None  # the defaults apply, as the warning says
    assert len(problems) == 1
    problem = problems[0]
    assert problem.severity is Severity.WARNING
    assert "[tool.allo-lsp] is not read" in problem.message and "pip install tomli" in problem.message
    header = TEXT.split("\n").index("[tool.allo-lsp]")
    assert (problem.range.start.line, problem.range.end.line) == (header, header)


def test_tomllib_is_preferred_where_both_are_there(monkeypatch):
    tomli = types.ModuleType("tomli")
    tomli.TOMLDecodeError = tomllib.TOMLDecodeError
    tomli.loads = lambda text: pytest.fail("tomli read where tomllib is there")
    monkeypatch.setitem(sys.modules, "tomli", tomli)

    found, problems = parse_config(TEXT)

    assert problems == [] and found is not None and found.ignore == ("ADF006",)
