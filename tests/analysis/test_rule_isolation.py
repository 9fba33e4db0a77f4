"""Each rule runs alone: one that raises is one ADF902 problem naming it (the tool's bug, not the
design's), and every other rule still reports. A rule is made to raise by replacing its check."""

import pytest
from allo_lsp.analysis import Options, analyze
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules import BY_CODE
from allo_lsp.analysis.selection import Selection
from paths import EXAMPLES

ARG_ORDER = (EXAMPLES / "pitfall_arg_order.py").read_text()  # ADF003 and ADF005 on line 26


def codes(problems) -> list[str]:
    return [p.code for p in problems]


def breaks(monkeypatch, code: str, after_one: bool = False) -> None:
    """`code`'s rule raises, at once or after yielding its first finding."""
    check = BY_CODE[code].module.check

    def broken(ctx):
        if after_one:
            yield next(iter(check(ctx)))
        raise IndexError("list index out of range")

    monkeypatch.setattr(BY_CODE[code].module, "check", broken if after_one else lambda ctx: [][0])


def test_the_design_as_the_rules_see_it():
    assert codes(analyze(ARG_ORDER).problems) == ["ADF003", "ADF005"]


def test_a_rule_that_raises_is_one_internal_error_and_the_others_still_report(monkeypatch):
    breaks(monkeypatch, "ADF003")

    problems = analyze(ARG_ORDER).problems

    assert codes(problems) == ["ADF902", "ADF005"]
    internal = problems[0]
    assert internal.severity is Severity.WARNING
    assert (internal.range.start.line, internal.range.start.column) == (0, 0)
    message = internal.message
    assert message.startswith("ADF003 (legacy-arg-order) failed on this file with IndexError (list index out of range)")
    assert " at test_rule_isolation.py:" in message  # where it was raised: a bug report's first clue
    assert "a bug in allo-lsp, not in your design" in message and "every other rule still checked" in message
    assert internal.data == {"rule": "ADF003", "exception": "IndexError"}


def test_a_rule_that_raises_midway_keeps_none_of_its_problems(monkeypatch):
    breaks(monkeypatch, "ADF003", after_one=True)

    assert codes(analyze(ARG_ORDER).problems) == ["ADF902", "ADF005"]


def test_each_rule_that_raises_is_its_own_internal_error(monkeypatch):
    breaks(monkeypatch, "ADF003")
    breaks(monkeypatch, "ADF005")

    problems = analyze(ARG_ORDER).problems

    assert codes(problems) == ["ADF902", "ADF902"]
    assert sorted(p.data["rule"] for p in problems) == ["ADF003", "ADF005"]


def test_a_rule_that_raises_where_the_file_does_not_show_it_is_not_reported(monkeypatch):
    breaks(monkeypatch, "ADF003")

    ignoring = Options(selection=Selection(ignored=frozenset({"ADF003"})))

    assert codes(analyze(ARG_ORDER, ignoring).problems) == ["ADF005"]


def test_the_internal_error_follows_the_selection_as_any_code(monkeypatch):
    breaks(monkeypatch, "ADF003")

    ignoring = Options(selection=Selection(ignored=frozenset({"ADF902"})))

    assert codes(analyze(ARG_ORDER, ignoring).problems) == ["ADF005"]


@pytest.mark.parametrize("exc", [RecursionError("maximum recursion depth exceeded"), KeyError("region")])
def test_any_exception_of_a_rule_is_contained(monkeypatch, exc):
    def broken(ctx):
        raise exc

    monkeypatch.setattr(BY_CODE["ADF003"].module, "check", broken)

    problems = analyze(ARG_ORDER).problems

    assert codes(problems) == ["ADF902", "ADF005"]
    assert f"with {type(exc).__name__} (" in problems[0].message
