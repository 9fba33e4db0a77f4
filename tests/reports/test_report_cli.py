"""`allo-lsp report` as a terminal or CI runs it: a real subprocess."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "report", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def test_text_is_the_default():
    out = report(FIXTURES / "vivado_2018_3.xml")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("stream_top (HLS 2018.3, xc7z020clg400-1)\n")
    assert "slack 0.238 ns" in out.stdout and "  o l_S_i_0_i" in out.stdout


def test_json_schema():
    out = report(FIXTURES / "vitis_2023_1_dataflow.xml", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert list(data) == ["version", "part", "top", "clock", "latency", "interval", "resources", "modules", "loops"]
    assert list(data["clock"]) == ["target_ns", "uncertainty_ns", "estimated_ns", "slack_ns"]
    assert data["latency"] == {"best": 1208, "average": None, "worst": 3624}
    assert data["resources"]["URAM"] == {"used": 2, "available": 960, "percent": 0.21}
    module = data["modules"][2]
    assert list(module) == ["name", "latency", "interval", "resources", "loops"]
    assert list(module["loops"][0]) == [
        "name",
        "trip_count",
        "latency",
        "iteration_latency",
        "ii",
        "pipelined",
        "loops",
    ]
    assert module["loops"][0]["trip_count"] == {"min": 64, "max": 128}


def test_markdown_of_a_project_directory(tmp_path):
    folder = tmp_path / "out.prj" / "solution1" / "syn" / "report"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "vitis_2023_1_dataflow.xml", folder / "csynth.xml")
    out = report(tmp_path, "--format", "md")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("### top (HLS 2023.1, xcu280-fsvh2892-2L-e)\n")
    assert "| Resource | Used | Available | Utilisation |" in out.stdout
    assert "URAM     ░░░░░░░░░░   0.2%" in out.stdout


def test_missing_and_malformed_reports_exit_2_with_one_line(tmp_path):
    for path, reason in (
        (tmp_path, "no syn/report/csynth.xml below it"),
        (tmp_path / "csynth.xml", "no such file"),
        (FIXTURES / "truncated.xml", "malformed XML at line 51"),
        (FIXTURES / "not_xml.xml", "not XML"),
    ):
        out = report(path)
        assert out.returncode == 2, (path, out.stdout)
        assert out.stdout == ""
        assert out.stderr.startswith(f"allo-lsp report: {path}") and reason in out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
