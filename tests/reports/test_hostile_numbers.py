"""Reports no Vitis writes, as an attacker or a broken disk might: numbers no float holds, lines
that make a backtracking regex quadratic, nesting and entities. Each is read or refused clearly;
a figure that cannot be read is reported as unreadable and the rest of the report stands."""

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from allo_lsp.reports import ReportError, format_markdown, format_text, parse_report
from allo_lsp.reports.model import UnreadableFigure, number, time_ns

FIXTURES = Path(__file__).resolve().parent / "fixtures"
DATAFLOW = (FIXTURES / "vitis_2023_1_dataflow.xml").read_text()
HUGE = "9" * 400
# A stall bound, not a benchmark: linear parsing takes milliseconds, the quadratic regex took 6 s.
STALL_S = 2.0


def with_first(tag: str, text: str, report: str = DATAFLOW) -> str:
    return re.sub(rf"<{tag}>[^<]*</{tag}>", f"<{tag}>{text}</{tag}>", report, count=1)


def test_a_number_no_float_holds_is_one_unreadable_figure_and_the_rest_stands():
    report = parse_report(with_first("LUT", HUGE))
    lut = report.resources["LUT"]
    assert isinstance(lut.used, UnreadableFigure) and lut.percent is None
    assert report.resources["FF"].used == 3301 and report.latency.worst == 3624  # the rest as before
    data = report.to_json()
    assert data["resources"]["LUT"] == {"used": None, "available": 1303680, "percent": None}
    assert data["unreadable"] == [{"figure": "resources.LUT.used", "text": "9" * 40 + "... (400 characters)"}]
    text = format_text(report)
    assert re.search(r"^LUT\s+unreadable\s+1303680\s+-$", text, re.M), text
    assert "unreadable" in format_markdown(report)


def test_infinities_and_nan_are_unreadable_not_figures():
    report = parse_report(with_first("TargetClockPeriod", "1e999", with_first("DSP", "nan")))
    assert isinstance(report.clock.target_ns, UnreadableFigure) and isinstance(
        report.resources["DSP"].used, UnreadableFigure
    )
    data = report.to_json()
    assert data["clock"]["target_ns"] is None and data["clock"]["slack_ns"] == -0.05  # the explicit slack stands
    assert [u["figure"] for u in data["unreadable"]] == ["clock.target_ns", "resources.DSP.used"]
    assert isinstance(number("-1e999"), UnreadableFigure) and isinstance(time_ns(f"{HUGE} ms"), UnreadableFigure)
    assert number("undef") is None and number("12") == 12  # unknown stays unknown


def test_module_and_loop_figures_name_their_place():
    text = DATAFLOW.replace("<min>64</min>", f"<min>{HUGE}</min>", 1)
    data = parse_report(text).to_json()
    (where,) = [u["figure"] for u in data["unreadable"]]
    assert re.fullmatch(r"(modules\[\d+\]\.)?loops\[\d+\](\.loops\[\d+\])*\.trip_count(\.min|\.max)?", where), where


def test_a_huge_number_in_an_rpt_summary():
    rpt = (
        "* Version:        2023.2\n"
        "== Synthesis Summary Report of 'top'\n"
        "+--------------------+------+---------+------------+--------+------+\n"
        "|  Modules & Loops   | Slack| Latency |  Interval  |   FF   |  LUT |\n"
        "|                    |      | (cycles)|            |        |      |\n"
        "+--------------------+------+---------+------------+--------+------+\n"
        f"|+ top               | 0.12 |  {HUGE} |       10   |  100   |  {HUGE} |\n"
        "+--------------------+------+---------+------------+--------+------+\n"
    )
    report = parse_report(rpt)
    assert report.top == "top" and report.clock.slack_ns == 0.12 and report.resources["FF"].used == 100
    assert isinstance(report.latency.worst, UnreadableFigure) and isinstance(
        report.resources["LUT"].used, UnreadableFigure
    )
    assert "unreadable" in format_text(report)


@pytest.mark.parametrize(
    "text",
    [
        "* Version: 2020.2\n== Performance Estimates\n" + "== " * 80_000 + "\n",  # the title regex
        "* Version: 2020.2\n== Performance Estimates\n" + "Report of '" * 40_000 + "\n",
        "* Version: 2020.2\n" + "*" + " " * 80_000 + "\n== Performance Estimates\n",
    ],
)
def test_lines_that_made_a_regex_backtrack_parse_in_linear_time(text):
    started = time.monotonic()
    parse_report(text)
    assert time.monotonic() - started < STALL_S


def test_a_time_with_spaces_before_garbage_is_linear():
    started = time.monotonic()
    assert time_ns("1" + " " * 50_000 + "!") is None
    assert time.monotonic() - started < STALL_S


@pytest.mark.timeout(STALL_S)
def test_a_time_of_many_es_is_linear():
    """`e` is both the number's exponent and a unit's letter: `1eee...` before a unit that is
    none was retried as number and unit from each `e` (20,000: about 7 s)."""
    assert time_ns("1" + "e" * 20_000 + "s!") is None
    assert time_ns("1" + "e" * 20_000 + "ns") is None
    assert (time_ns("12.080 us"), time_ns("1.5E-3s"), time_ns("5ns"), time_ns("7")) == (12080.0, 1500000.0, 5.0, 7.0)


def test_a_deep_module_hierarchy_says_so():
    deep = "<InstancesList><Instance><ModuleName>m</ModuleName>" * 5000 + "</Instance></InstancesList>" * 5000
    text = (
        "<profile><ModuleInformation><Module><Name>a</Name></Module></ModuleInformation>"
        f"<RTLDesignHierarchy><TopModule><ModuleName>a</ModuleName>{deep}</TopModule></RTLDesignHierarchy></profile>"
    )
    with pytest.raises(ReportError) as error:
        parse_report(text)
    assert "module hierarchy nested more than" in str(error.value) and "loops" not in str(error.value)


def test_entity_expansion_is_named_as_such_not_truncation():
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)
    )
    text = f'<?xml version="1.0"?><!DOCTYPE profile [{entities}]><profile><UserAssignments><Part>&i;</Part></UserAssignments></profile>'
    with pytest.raises(ReportError) as error:
        parse_report(text)
    message = str(error.value)
    assert "entit" in message and "truncated" not in message, message


def test_the_report_command_shows_the_unreadable_figure(tmp_path):
    path = tmp_path / "csynth.xml"
    path.write_text(with_first("LUT", HUGE))
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "report", str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert re.search(r"^LUT\s+unreadable", out.stdout, re.M)
