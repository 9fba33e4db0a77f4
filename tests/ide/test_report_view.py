"""The report view's model (`ide/synthesis.report_view`): the newest report, the one before it and
the change since, computed on the reports' JSON (what is kept across servers)."""

from allo_lsp.ide.synthesis import report_view
from allo_lsp.protocol.details import SynthesisDetails
from allo_lsp.protocol.messages import PASSED, SYNTHESIZE, JobResult
from allo_lsp.reports import delta, format_markdown, parse_report
from paths import ROOT

FIXTURES = ROOT / "tests" / "reports" / "fixtures"


def _outcome(report) -> JobResult:
    details = SynthesisDetails(report=report.to_json(), report_markdown=format_markdown(report))
    return JobResult(PASSED, None, "top synthesized", details=details).of_kind(SYNTHESIZE)


def test_the_change_on_json_is_the_reports_own_delta():
    """Two different reports (Vitis 2023.1 and Vivado 2018.3): `reports.delta` of their JSON (what
    is kept across servers) is its delta of the parsed reports."""
    new, old = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml"), parse_report(FIXTURES / "vivado_2018_3.xml")
    changes = delta(old.to_json(), new.to_json())
    assert changes == delta(old, new)
    assert any(v["old"] != v["new"] for v in changes.values())  # the two differ: a change to show


def test_the_view_shows_the_previous_report_and_what_changed():
    new, old = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml"), parse_report(FIXTURES / "vivado_2018_3.xml")
    view = report_view("top", _outcome(new), old.to_json())
    assert view["report"] == new.to_json() and view["previous"] == old.to_json()
    table = view["markdown"].split("### Change since the previous run", 1)[1]
    best, worst = delta(old, new)["latency_best"], delta(old, new)["latency_worst"]
    assert f"| latency_best | {best['old']} | {best['new']} | {best['change']} |" in table
    assert f"| latency_worst | None | {worst['new']} | — |" in table  # no number before: no change to give


def test_a_first_report_has_no_change_and_no_report_says_what_to_do():
    report = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    first = report_view("top", _outcome(report), None)
    assert first["previous"] is None and "Change since" not in first["markdown"]
    same = report_view("top", _outcome(report), report.to_json())
    assert same["markdown"].rstrip().endswith("### Change since the previous run\n\nNo figure changed.")
    assert report_view("top", None, None) == {"markdown": "No synthesis report for 'top' yet: run ⚙ Synthesize first."}
