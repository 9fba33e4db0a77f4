"""Hostile report numbers and shapes through the report parsers and everything that shows a
report: nothing but a ReportError escapes, no figure in the JSON is anything but a finite number,
null or a range of those, and the editor's report view, lens and hover figures are made.

A case is one of the hand-written reports (`tests/reports/fixtures`, XML and .rpt) with a few
of its figures replaced by hostile numbers (400 digits, 1e999, nan, 1e-400, unicode digits,
underscores, signs, a megabyte of digits) and some of its elements dropped, repeated or nested.
Derandomized and bounded: CI tests the same cases every time.
"""

import json
import re
from pathlib import Path

from allo_lsp.finite_json import dumps
from allo_lsp.ide.synthesis import change_markdown, lens_title, report_view, timing_violation
from allo_lsp.protocol.details import SynthesisDetails
from allo_lsp.protocol.messages import PASSED, JobResult
from allo_lsp.reports import ReportError, format_markdown, format_text, parse_report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[1] / "reports" / "fixtures"
REPORTS = {
    name: (FIXTURES / name).read_text()
    for name in ("vitis_2023_1_dataflow.xml", "vivado_2018_3.xml", "vivado_2018_3.rpt")
}
CASES = 150
# A figure in the XML (an element's text that is a number) or a number in an .rpt table cell.
XML_FIGURE = re.compile(r"(?<=>)-?[0-9][0-9.e+-]*(?=<)")
RPT_FIGURE = re.compile(r"(?<=[| ])-?[0-9][0-9.e+-]*(?=[ |])")
HOSTILE = st.one_of(
    st.sampled_from(
        [
            "9" * 400,
            "1e999",
            "-1e999",
            "nan",
            "NaN",
            "inf",
            "1e-400",
            "1e-300",
            "-0",
            "0x1F",
            "1_000",
            "١٢٣",
            "1e308",
            "9" * 5000,
            "1" * 1_000_000,
            "+-1",
            "1.2.3",
            "1e",
            " 12 ",
            "12 ~ 9e999",
            "undef",
            "",
        ]
    ),
    st.integers(min_value=-(10**500), max_value=10**500).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@st.composite
def cases(draw) -> str:
    name = draw(st.sampled_from(sorted(REPORTS)))
    text = REPORTS[name]
    pattern = RPT_FIGURE if name.endswith(".rpt") else XML_FIGURE
    spots = list(pattern.finditer(text))
    chosen = draw(st.lists(st.sampled_from(spots), min_size=1, max_size=6, unique_by=lambda m: m.start()))
    for match in sorted(chosen, key=lambda m: m.start(), reverse=True):
        text = text[: match.start()] + draw(HOSTILE) + text[match.end() :]
    if name.endswith(".xml") and draw(st.booleans()):  # a shape no Vitis writes: an element dropped or repeated
        elements = list(re.finditer(r"<(\w+)>[^<>]*</\1>", text))
        element = draw(st.sampled_from(elements))
        again = element[0] * draw(st.integers(0, 3))
        text = text[: element.start()] + again + text[element.end() :]
    return text


def _figures_are_finite(data) -> None:
    json.dumps(data, allow_nan=False)  # raises if a figure is not finite


@settings(max_examples=CASES, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_hostile_figures_are_read_or_refused_and_shown(text):
    try:
        report = parse_report(text)
    except ReportError:
        return
    data = report.to_json()
    _figures_are_finite(data)
    for unreadable in data.get("unreadable", []):
        assert len(unreadable["text"]) < 100 and unreadable["figure"]
    format_text(report)
    markdown = format_markdown(report)
    result = JobResult(PASSED, None, "top synthesized", details=SynthesisDetails(report=data, report_markdown=markdown))
    base = parse_report(REPORTS["vitis_2023_1_dataflow.xml"]).to_json()
    view = report_view("top", result, base)
    json.loads(dumps(view))
    lens_title(data)
    timing_violation(data)
    change_markdown(data, base)
