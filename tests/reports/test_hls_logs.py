"""Did a synthesis run fail? Judged from the log, on real logs and lines from real issues."""

import csv
from collections import Counter
from pathlib import Path

import pytest
from allo_lsp.reports import LogMessage, failed, last_run, scan_log

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_tagged_messages_and_untagged_trailers():
    text = (FIXTURES / "two_sessions.log").read_text()
    messages = [m for m in scan_log(text) if m.severity != "INFO"]
    assert messages == [
        LogMessage(
            "CRITICAL WARNING",
            "HLS",
            "214-356",
            "Cannot apply the pragma in function 'consumer_0' (kernel.cpp:41:9)",
            11,
        ),
        LogMessage("ERROR", "HLS", "207-3776", "use of undeclared identifier 'v3' (kernel.cpp:42:9)", 12),
        LogMessage("ERROR", "", "", "Pre-synthesis failed.", 13),
        LogMessage("ERROR", "", "", "command 'ap_source' returned error code", 14),
        LogMessage(
            "WARNING",
            "HLS",
            "200-880",
            "The II Violation in module 'consumer_0' (loop 'l_j'): Unable to "
            "enforce a carried dependence constraint (II = 1, distance = 1, offset = 1)",
            24,
        ),
    ]
    assert failed(scan_log(text))
    assert last_run(text) == 19  # the second banner: that session ended cleanly
    assert not failed(scan_log(text), since_line=last_run(text))


def test_a_clean_log_has_not_failed():
    assert not failed(scan_log("INFO: [HLS 200-111] Finished Command csynth_design CPU user time: 20 seconds.\n"))
    assert scan_log("") == [] and last_run("") == 1


def test_vivado_2019_2_log_with_many_sessions(vitis):
    text = (vitis / "teozax__fishery__solution1.log").read_text()
    messages = scan_log(text)
    errors = [m for m in messages if m.severity == "ERROR"]
    assert Counter(m.tool for m in errors) == {"SIM": 53, "HLS": 19, "SYNCHK": 9}
    assert errors[0] == LogMessage(
        "ERROR", "HLS", "200-627", "Cannot find C test bench. Please specify test bench files using 'add_files -tb'.", 9
    )
    assert LogMessage("ERROR", "HLS", "200-70", "Synthesizability check failed.", 966) in errors
    assert [m.code for m in errors if m.tool == "SYNCHK"].count("200-41") == 1
    assert failed(messages)
    # The file keeps every session; the last one (line 2915) only ran C simulation, without errors.
    assert last_run(text) == 2915
    assert not failed(messages, since_line=2915)


def test_vivado_2018_2_compilation_errors(vitis):
    text = (vitis / "skkwan__phase2_bjets_hls__solution1.log").read_text()
    errors = [m for m in scan_log(text) if m.severity == "ERROR"]
    assert [(m.tool, m.code, m.line) for m in errors] == [("HLS", "200-70", 43), ("HLS", "200-70", 97)]
    assert errors[0].message.startswith("Compilation errors found: Pragma processor failed:")
    # The clang diagnostics that follow (`file:line:col: error: ...`) are not HLS messages.
    assert not any(m.message.startswith("phase2_bjets_hls/") for m in scan_log(text))


def lines_from_issues(vitis):
    with open(vitis / "log_error_lines.tsv", newline="") as handle:
        rows = [r for r in csv.reader(handle, delimiter="\t") if r and not r[0].startswith("#")]
    assert len(rows) == 30
    return rows


def test_every_failure_line_from_real_issues_is_caught(vitis):
    for category, _tool, line, source in lines_from_issues(vitis):
        # Not failures: banners, an INFO, a license WARNING, and the `what():` line that follows a
        # `terminate called ...` (which is the line that is caught).
        harmless = (
            category in ("banner", "ii_info") or line.startswith("WARNING") or line.lstrip().startswith("what():")
        )
        assert failed(scan_log(line)) is not harmless, (category, line, source)


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "ERROR: [v++ 60-773] In '/home/x/vitis_hls.log', caught Tcl error: ERROR: [HLS 207-814] header",
            ("ERROR", "v++", "60-773"),
        ),
        ("ERROR: [Common 17-345] A valid license was not found for feature 'Synthesis'", ("ERROR", "Common", "17-345")),
        ("WARNING: [Common 17-348] Failed to get the license for feature 'Synthesis'", ("WARNING", "Common", "17-348")),
        (
            "INFO: [SCHED 204-61] Pipelining result : Target II = 1, Final II = 1, Depth = 5.",
            ("INFO", "SCHED", "204-61"),
        ),
        ("ERROR: '2201251806' is an invalid argument. Please specify an integer value.", ("ERROR", "", "")),
        ("Abnormal program termination (11)", ("ERROR", "", "")),
    ],
)
def test_severity_tool_and_code(line, expected):
    (message,) = scan_log(line)
    assert (message.severity, message.tool, message.code) == expected


def test_banners_of_every_version_start_a_session(vitis):
    banners = [line for category, _t, line, _s in lines_from_issues(vitis) if category == "banner"]
    assert len(banners) == 2
    for banner in banners:
        assert last_run(f"ERROR: [HLS 200-70] Pre-synthesis failed.\n{banner}\nINFO: [HLS 200-10] ok\n") == 2
