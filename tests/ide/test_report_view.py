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


def test_a_report_that_is_no_reports_json_costs_its_figures_never_the_view():
    """A report kept by an older server, or written by hand, that does not fit the report's JSON
    (`protocol/report.py`): the lens, the timing line and the kernel's figures say nothing of it,
    the view shows no change, and nothing raises."""
    from allo_lsp.ide.synthesis import lens_title, pe_modules, timing_violation

    report = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    broken = {"latency": 5, "clock": {"slack_ns": "-1"}, "modules": {"name": "producer_0"}}
    assert lens_title(broken) == "⚙ ? cycles · II ?"
    assert timing_violation(broken) is None
    assert pe_modules(broken, _Kernel(("producer_0",))) == []
    view = report_view("top", _outcome(report), broken)
    assert "Change since" not in view["markdown"] and view["report"] == report.to_json()


def test_the_lens_and_a_kernels_figures_read_the_typed_report():
    report = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    from allo_lsp.ide.synthesis import kernel_hint, kernel_markdown, lens_title

    assert lens_title(report) == lens_title(report.to_json())  # typed, or its JSON as details carry it
    names = tuple(m.name for m in report.modules[1:3])
    table = kernel_markdown(report, _Kernel(names))
    assert "| PE | latency | II | BRAM_18K | DSP | FF | LUT | URAM |" in table  # the one resource list's order
    assert all(f"`{name}`" in table for name in names)
    assert kernel_hint(report.to_json(), _Kernel(names)).startswith("⚙ ")


class _Kernel:
    """What ide/synthesis reads of a kernel: its PEs' instance names."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.instance_names = names
