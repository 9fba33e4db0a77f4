"""The format drift, on small hand-written reports (tests/reports/fixtures/README.md says which covers what)."""

import os
import shutil
from pathlib import Path

import pytest
from allo_lsp.reports import Range, ReportError, find_report, load, parse_report
from allo_lsp.reports.model import number, time_ns, value

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_value_grammar():
    assert [number(t) for t in ("12", " 16.694 ", "undef", "?", "-", "", None, "abc")] == [
        12,
        16.694,
        None,
        None,
        None,
        None,
        None,
        None,
    ]
    assert value("3196 ~ 3198") == Range(3196, 3198)
    assert value("24 ~ 24") == 24  # a range whose ends agree is a number
    assert value("2 ~ ?") == Range(2, None)
    assert [time_ns(t) for t in ("12.080 us", "6.144 ms", "20.000 ns", "2.627e+06", "6144020", "undef")] == [
        12080.0,
        6144000.0,
        20.0,
        2627000.0,
        6144020,
        None,
    ]
    assert time_ns("0 ns ~ 10.476 ms") == Range(0.0, 10476000.0)
    assert time_ns("3 parsecs") is None


def test_vivado_2018_dsp48e_range_elements_undef_and_repeated_loops():
    report = parse_report(FIXTURES / "vivado_2018_3.xml")
    data = report.to_json()
    assert (data["version"], data["part"], data["top"]) == ("2018.3", "xc7z020clg400-1", "stream_top")
    assert data["clock"] == {"target_ns": 10.0, "uncertainty_ns": 1.25, "estimated_ns": 8.512, "slack_ns": 0.238}
    assert data["latency"] == {"best": 5, "average": None, "worst": None}
    assert data["interval"] == {"min": 6, "max": None}
    # DSP48E is DSP; the output order is fixed whatever order the report used.
    assert data["resources"] == {
        "BRAM_18K": {"used": 4, "available": 280, "percent": 1.43},
        "DSP": {"used": 5, "available": 220, "percent": 2.27},
        "FF": {"used": 1204, "available": 106400, "percent": 1.13},
        "LUT": {"used": 2310, "available": 53200, "percent": 4.34},
        "URAM": {"used": 0, "available": 0, "percent": None},
    }
    first, second = data["loops"]
    assert (first["name"], second["name"]) == ("l_S_i_0_i", "l_S_i_0_i")  # both repeats, in order
    assert first == {
        "name": "l_S_i_0_i",
        "trip_count": {"min": 1, "max": 64},
        "latency": {"min": 11, "max": 704},
        "iteration_latency": 11,
        "ii": None,
        "pipelined": False,
        "loops": [
            {
                "name": "l_j",
                "trip_count": 8,
                "latency": 9,
                "iteration_latency": 2,
                "ii": 1,
                "pipelined": True,
                "loops": [],
            }
        ],
    }
    assert (second["trip_count"], second["latency"], second["iteration_latency"]) == (4, None, None)


def test_vitis_2023_modules_explicit_slack_unit_strings_and_inline_ranges():
    report = parse_report(FIXTURES / "vitis_2023_1_dataflow.xml")
    # The explicit <Slack> wins: 3.33 - 0.90 - 2.433 would be -0.003.
    assert report.clock.slack_ns == -0.05
    assert (report.latency.best, report.latency.average, report.latency.worst) == (1208, None, 3624)
    assert report.interval == Range(605, 1813)
    assert report.latency_ns == 12080.0  # "12.080 us"
    assert report.resources["URAM"].percent == 0.21
    assert [(m.name, m.depth) for m in report.modules] == [
        ("top", 0),
        ("producer_0", 1),
        ("producer_0_Pipeline_l_S_i_0_i", 2),
        ("consumer_0", 1),
    ]
    top, producer, pipeline, consumer = report.modules
    assert top.interval == Range(605, 1813) and producer.interval == Range(68, 132)
    (loop,) = pipeline.loops
    assert (loop.trip_count, loop.latency, loop.ii, loop.iteration_latency, loop.pipelined) == (
        Range(64, 128),
        Range(64, 128),
        1,
        2,
        True,
    )
    assert loop.latency_ns == Range(213.0, 426.0)
    assert [(l.name, l.trip_count, l.pipelined) for l in consumer.loops] == [("l_j", 600, False), ("l_j", 602, False)]
    assert {n: r.used for n, r in consumer.resources.items()} == {
        "BRAM_18K": 2,
        "DSP": 0,
        "FF": 2150,
        "LUT": 2380,
        "URAM": 2,
    }


def test_missing_elements_are_null_not_errors():
    data = parse_report(FIXTURES / "missing_elements.xml").to_json()
    assert data["version"] is None
    assert data["clock"] == {"target_ns": 10.0, "uncertainty_ns": None, "estimated_ns": 7.256, "slack_ns": None}
    assert data["latency"] == {"best": 17, "average": 17, "worst": None}
    assert data["interval"] == {"min": 18, "max": None}
    assert data["resources"] == {
        name: {"used": used, "available": None, "percent": None}
        for name, used in (("BRAM_18K", 0), ("FF", 88), ("LUT", 141))
    }
    assert [m["name"] for m in data["modules"]] == ["kernel_0"] and data["loops"] == []


def test_detailed_rpt_question_marks_and_min_max_columns():
    report = parse_report(FIXTURES / "vivado_2018_3.rpt")
    assert (report.version, report.part, report.top) == ("2018.3", "xc7z020clg400-1", "stream_top")
    c = report.clock
    assert (c.target_ns, c.uncertainty_ns, c.estimated_ns, c.slack_ns) == (10.0, 1.25, 8.512, 0.238)
    assert (report.latency.best, report.latency.worst, report.interval) == (5, None, Range(6, None))
    assert {n: (r.used, r.available) for n, r in report.resources.items()} == {
        "BRAM_18K": (4, 280),
        "DSP": (5, 220),
        "FF": (1204, 106400),
        "LUT": (2310, 53200),
        "URAM": (0, 0),
    }
    first, second = report.loops
    assert (first.name, first.latency, first.trip_count, first.pipelined) == (
        "l_S_i_0_i",
        Range(11, None),
        Range(1, 64),
        False,
    )
    assert [(l.name, l.latency, l.ii, l.pipelined) for l in first.loops] == [("l_j", 9, 1, True)]
    assert (second.name, second.latency, second.iteration_latency, second.trip_count) == ("l_S_i_0_i", None, None, 4)


def test_text_input_is_parsed_like_the_file():
    for name in ("vivado_2018_3.xml", "vivado_2018_3.rpt"):
        path = FIXTURES / name
        assert parse_report(path.read_text()).to_json() == parse_report(path).to_json()
        assert parse_report(str(path)).source == str(path)


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "truncated.xml",
            "truncated.xml: malformed XML at line 51, column 21: unclosed token; the file ends before the XML does (truncated?)",
        ),
        ("not_xml.xml", "not_xml.xml: not XML (it starts with 'open_project out.prj')"),
        (
            "wrong_root.xml",
            "wrong_root.xml: not a Vitis HLS synthesis report (root element <{com.autoesl.autopilot.project}project>, expected <profile>)",
        ),
        ("README.md", "README.md: not a Vitis HLS report (neither csynth.xml nor a csynth.rpt)"),
    ],
)
def test_bad_files_raise_a_clear_report_error(name, message):
    with pytest.raises(ReportError) as error:
        parse_report(FIXTURES / name)
    assert str(error.value) == f"{FIXTURES / name}{message[len(name) :]}"
    chained = error.value.__cause__ or (None if error.value.__suppress_context__ else error.value.__context__)
    assert chained is None  # no parser traceback rides along


def test_missing_empty_and_directory_inputs(tmp_path):
    with pytest.raises(ReportError, match="nothing.xml: no such file"):
        parse_report(tmp_path / "nothing.xml")
    (tmp_path / "empty.xml").write_text("")
    with pytest.raises(ReportError, match="empty.xml: empty file"):
        load(tmp_path / "empty.xml")
    with pytest.raises(ReportError, match="no syn/report/csynth.xml below it"):
        load(tmp_path)
    with pytest.raises(ReportError, match="no such directory"):
        find_report(tmp_path / "absent")


@pytest.mark.parametrize("name", ["vivado_2018_3.xml", "vitis_2023_1_dataflow.xml", "vivado_2018_3.rpt"])
def test_any_prefix_of_a_report_parses_or_raises_report_error(name):
    text = (FIXTURES / name).read_text()
    for end in range(0, len(text), 37):
        try:
            parse_report(text[:end] + "\n")
        except ReportError:
            pass


def test_absurdly_deep_loop_nesting_is_a_report_error():
    deep = "<l><TripCount>1</TripCount>" * 5000 + "</l>" * 5000
    with pytest.raises(ReportError, match="loops nested more than 100 deep"):
        parse_report(
            f"<profile><PerformanceEstimates><SummaryOfLoopLatency>{deep}</SummaryOfLoopLatency>"
            "</PerformanceEstimates></profile>"
        )


def test_find_report_takes_the_newest_csynth_xml(tmp_path):
    old = _report_dir(tmp_path / "a.prj" / "solution1") / "csynth.xml"
    new = _report_dir(tmp_path / "b.prj" / "solution1") / "csynth.xml"
    shutil.copy(FIXTURES / "vivado_2018_3.xml", old)
    shutil.copy(FIXTURES / "vitis_2023_1_dataflow.xml", new)
    os.utime(old, (1_700_000_000, 1_700_000_000))
    os.utime(new, (1_700_000_100, 1_700_000_100))
    assert find_report(tmp_path) == new
    assert load(tmp_path).top == "top"
    os.utime(old, (1_700_000_200, 1_700_000_200))  # the older project was synthesised again
    assert load(tmp_path).top == "stream_top"


def test_find_report_falls_back_to_the_rpt(tmp_path):
    rpt = _report_dir(tmp_path / "out.prj" / "solution1") / "csynth.rpt"
    shutil.copy(FIXTURES / "vivado_2018_3.rpt", rpt)
    assert find_report(tmp_path) == rpt
    assert load(tmp_path).clock.slack_ns == 0.238


def test_load_uses_module_files_only_without_module_information(tmp_path):
    folder = _report_dir(tmp_path / "out.prj" / "solution1")
    shutil.copy(FIXTURES / "vivado_2018_3.xml", folder / "csynth.xml")
    shutil.copy(FIXTURES / "missing_elements.xml", folder / "kernel_0_csynth.xml")
    shutil.copy(FIXTURES / "truncated.xml", folder / "broken_csynth.xml")  # left out, not fatal
    report = load(folder / "csynth.xml")
    assert [(m.name, m.depth, m.latency.best) for m in report.modules] == [("stream_top", 0, 5), ("kernel_0", 1, 17)]
    shutil.copy(FIXTURES / "vitis_2023_1_dataflow.xml", folder / "csynth.xml")
    assert [m.name for m in load(folder).modules] == [
        "top",
        "producer_0",
        "producer_0_Pipeline_l_S_i_0_i",
        "consumer_0",
    ]


def _report_dir(solution: Path) -> Path:
    folder = solution / "syn" / "report"
    folder.mkdir(parents=True)
    return folder


def test_reports_is_pure_standard_library():
    # reports/ is pure parsing (ARCHITECTURE.md): the language server and the CLI both build on it.
    # Of ours it imports the typed report it makes (protocol/report.py, itself stdlib only).
    import ast
    import sys

    package = Path(__file__).resolve().parents[2] / "server" / "allo_lsp" / "reports"
    imported = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "allo_lsp.protocol.report":
                imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}
    assert {"subprocess", "socket"}.isdisjoint(imported)
