"""What a person reads: the text table, the markdown (with its bar chart), and the change between runs."""

import re
from dataclasses import replace
from pathlib import Path

from allo_lsp.reports import delta, format_markdown, format_text, parse_report
from snapshot import assert_snapshot

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SNAPSHOTS = HERE / "snapshots"


def test_text_and_markdown_of_a_dataflow_design():
    report = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    assert_snapshot(SNAPSHOTS / "vitis_2023_1_dataflow.txt", format_text(report) + "\n")
    assert_snapshot(SNAPSHOTS / "vitis_2023_1_dataflow.md", format_markdown(report) + "\n")


def test_text_of_a_vivado_report_with_unknowns():
    text = format_text(parse_report(FIXTURES / "vivado_2018_3.rpt"))
    assert_snapshot(SNAPSHOTS / "vivado_2018_3_rpt.txt", text + "\n")
    assert "Latency   5 ~ ? cycles" in text


def test_text_shows_the_timing_violation_and_every_module_and_loop():
    text = format_text(parse_report(FIXTURES / "vitis_2023_1_dataflow.xml"))
    assert "slack -0.05 ns  TIMING VIOLATED" in text
    rows = [m[1] for m in (re.match(r"( *[+o] \S+)", line) for line in text.splitlines()) if m]
    assert rows == [
        "+ top",
        "  + producer_0",
        "    + producer_0_Pipeline_l_S_i_0_i",
        "      o l_S_i_0_i",
        "  + consumer_0",
        "    o l_j",
        "    o l_j",
    ]


def test_markdown_bars_over_budget_and_nothing_available(vitis):
    bars = format_markdown(parse_report(vitis / "HanderRi__AMD-Pervasive-AI__csynth.xml")).splitlines()
    assert "FF       ███████░░░    74%" in bars  # 172584 of 234240
    assert "LUT      ██████████   231%  OVER BUDGET" in bars  # 270827 of 117120
    image = format_markdown(parse_report(vitis / "RISABH-UG26__image_pros__csynth.xml")).splitlines()
    assert "URAM     ░░░░░░░░░░    -  (none available)" in image
    assert "| URAM | 0 | 0 | - |" in image


def test_delta_against_the_previous_run():
    old = parse_report(FIXTURES / "vivado_2018_3.xml")
    resources = old.resources
    new = replace(
        old,
        latency=replace(old.latency, best=4),
        resources=replace(resources, lut=replace(resources.lut, used=2500), dsp=replace(resources.dsp, used=3)),
        clock=replace(old.clock, estimated_ns=8.012, slack_ns=0.738),
    )
    change = delta(old, new)
    assert change["latency_best"] == {"old": 5, "new": 4, "change": -1}
    assert change["latency_worst"] == {"old": None, "new": None, "change": None}  # undef both times
    assert change["LUT"] == {"old": 2310, "new": 2500, "change": 190}
    assert change["DSP"] == {"old": 5, "new": 3, "change": -2}
    assert change["FF"]["change"] == 0
    assert change["slack_ns"] == {"old": 0.238, "new": 0.738, "change": 0.5}
    assert list(change) == [
        "latency_best",
        "latency_average",
        "latency_worst",
        "interval_min",
        "interval_max",
        "estimated_ns",
        "slack_ns",
        "BRAM_18K",
        "DSP",
        "FF",
        "LUT",
        "URAM",
    ]


def test_delta_between_designs_with_ranges_and_missing_resources():
    change = delta(
        parse_report(FIXTURES / "missing_elements.xml"), parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    )
    assert change["latency_worst"] == {"old": None, "new": 3624, "change": None}
    assert change["interval_min"] == {"old": 18, "new": 605, "change": 587}
    assert change["DSP"] == {"old": None, "new": 3, "change": None}  # the old report had no DSP line
