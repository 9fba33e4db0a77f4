"""The typed synthesis report (`protocol/report.py`) and its one JSON encoding: every report
reports/ reads comes back from its JSON as it was (JSON -> Report -> JSON identical), unreadable
figures in their places; JSON that is no report's (stored, received) is a MalformedReport, or
None through `decoded`, never another exception."""

import json
import re
from pathlib import Path

import pytest
from allo_lsp.protocol.report import (
    MAX_NESTING,
    RESOURCES,
    MalformedReport,
    Report,
    Resource,
    Resources,
    UnreadableFigure,
    decoded,
)
from allo_lsp.reports import load, parse_report
from paths import SHARED

FIXTURES = Path(__file__).resolve().parents[1] / "reports" / "fixtures"
SYNTHETIC = ("vitis_2023_1_dataflow.xml", "vivado_2018_3.xml", "vivado_2018_3.rpt", "missing_elements.xml")
# The real reports live beside the repository, never inside it (tests/reports/conftest.py):
# without them these tests are skipped (an empty parameter set).
VITIS = SHARED / "fixtures" / "vitis"
REAL = sorted(p.name for p in VITIS.glob("*csynth.*")) if VITIS.is_dir() else []


def round_trip(report: Report) -> None:
    data = report.to_json()
    again = Report.from_json(json.loads(json.dumps(data)))  # as stored: through JSON text
    assert again.to_json() == data
    assert json.dumps(again.to_json()) == json.dumps(data)  # the keys' order too


@pytest.mark.parametrize("name", SYNTHETIC)
def test_the_synthetic_reports_come_back_from_their_json(name):
    report = parse_report(FIXTURES / name)
    round_trip(report)
    assert Report.from_json(report.to_json()).modules[0].name == report.modules[0].name


@pytest.mark.parametrize("name", REAL)
def test_the_real_reports_come_back_from_their_json(name):
    round_trip(parse_report(VITIS / name))


@pytest.mark.skipif(not REAL, reason=f"the shared Vitis fixtures are not here ({VITIS})")
def test_a_project_directory_with_module_files_comes_back_from_its_json(tmp_path):
    """The modules load() reads from the files beside csynth.xml."""
    for file in VITIS.glob("RISABH-UG26__image_pros__*csynth.xml"):
        (tmp_path / file.name.split("__")[-1]).write_bytes(file.read_bytes())
    report = load(tmp_path / "csynth.xml")
    assert len(report.modules) > 1
    round_trip(report)


def test_unreadable_figures_come_back_in_their_places():
    text = (FIXTURES / "vitis_2023_1_dataflow.xml").read_text()
    text = re.sub(r"<LUT>[^<]*</LUT>", f"<LUT>{'9' * 400}</LUT>", text, count=1)
    text = re.sub(r"<Worst-caseLatency>[^<]*</Worst-caseLatency>", "<Worst-caseLatency>1e999</Worst-caseLatency>", text)
    report = parse_report(text)
    data = report.to_json()
    assert len(data["unreadable"]) > 2  # the top's and every module's worst case, the LUT
    again = Report.from_json(data)
    assert isinstance(again.resources.lut.used, UnreadableFigure)
    assert isinstance(again.modules[-1].latency.worst, UnreadableFigure)
    assert again.resources == report.resources and again.latency == report.latency
    assert again.to_json() == data


def test_one_resource_list_in_one_order():
    assert RESOURCES == ("BRAM_18K", "DSP", "FF", "LUT", "URAM")
    resources = Resources.of({"LUT": Resource.of(5, 10), "BRAM_18K": Resource.of(1, 0)})
    assert list(resources) == ["BRAM_18K", "LUT"]  # RESOURCES' order, whatever order they came in
    assert resources["LUT"] is resources.lut and resources.lut.percent == 50.0
    assert resources["BRAM_18K"].percent is None  # none available: no percentage
    assert "URAM" not in resources and resources.get("URAM") is None
    with pytest.raises(KeyError):
        resources["DSP48E"]  # Vitis' old name is reports/' to know


def test_keys_a_report_lacks_are_unknowns_and_unknown_keys_are_ignored():
    report = Report.from_json({"top": "t", "resources": {"LUT": {"used": 3}, "GPU": {"used": 1}}, "later": 1})
    assert report.top == "t" and report.latency.worst is None and report.modules == ()
    assert list(report.resources) == ["LUT"] and report.resources.lut.used == 3


MALFORMED = {
    "a list": [1, 2],
    "a string": "report",
    "clock not an object": {"clock": 5},
    "a figure that is text": {"latency": {"worst": "12"}},
    "a figure that is a boolean": {"clock": {"slack_ns": True}},
    "a range of text": {"interval": {"min": 1, "max": "2"}},
    "latency a number": {"latency": 5},
    "modules an object": {"modules": {"name": "m"}},
    "a module without a name": {"modules": [{"latency": {}}]},
    "a resource not an object": {"resources": {"LUT": 5}},
    "a percentage of text": {"resources": {"LUT": {"percent": "5%"}}},
    "a loop's pipelined a string": {"loops": [{"name": "l", "pipelined": "yes"}]},
    "unreadable not a list": {"unreadable": {"figure": "x"}},
    "an unreadable entry of the wrong shape": {"unreadable": [{"figure": 1, "text": "x"}]},
    "a version that is a number": {"version": 2023.1},
}


@pytest.mark.parametrize("name", MALFORMED)
def test_json_that_is_no_reports_is_malformed_never_a_crash(name):
    with pytest.raises(MalformedReport):
        Report.from_json(MALFORMED[name])
    assert decoded(MALFORMED[name]) is None


def test_loops_nested_past_any_design_are_malformed_not_a_recursion_error():
    loop: dict = {"name": "innermost"}
    for depth in range(MAX_NESTING + 5):
        loop = {"name": f"l{depth}", "loops": [loop]}
    with pytest.raises(MalformedReport, match="nested"):
        Report.from_json({"loops": [loop]})
    shallow: dict = {"name": "innermost"}
    for depth in range(MAX_NESTING - 1):
        shallow = {"name": f"l{depth}", "loops": [shallow]}
    assert Report.from_json({"loops": [shallow]}).loops[0].name == f"l{MAX_NESTING - 2}"


def test_the_report_is_frozen():
    report = parse_report(FIXTURES / "vivado_2018_3.xml")
    with pytest.raises(AttributeError):
        report.latency.best = 4
    assert isinstance(report.modules, tuple) and isinstance(report.loops, tuple)
