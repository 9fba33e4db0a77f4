"""`allo-lsp synth` with the stand-in Allo and the stand-in Vitis HLS (tests/standin)."""

import json
import os
import subprocess
import sys
import time

import pytest
from allo_lsp.jobs.manager import ToolRun
from allo_lsp.jobs.synthesis import _judge
from designs import design
from paths import EXAMPLES, STANDIN


def synth(target: str, *args: str, vitis: str = "ok", path_has_vitis: bool = True, env_extra=None) -> tuple[dict, int]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(STANDIN)
    env["VITIS_STANDIN"] = vitis
    if path_has_vitis:
        env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env['PATH']}"
    env.update(env_extra or {})
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "synth", target, "--format", "json", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return json.loads(out.stdout), out.returncode


def test_synthesis_passes_with_the_report_and_keeps_the_project(tmp_path):
    result, rc = synth(f"{EXAMPLES / 'producer_consumer.py'}::top", "--part", "xczu7ev-ffvc1156-2-e", "--clock", "5")
    assert rc == 0 and result["status"] == "passed", result["message"]
    report = result["details"]["report"]
    assert (report["top"], report["part"]) == ("top", "xczu7ev-ffvc1156-2-e")
    assert report["latency"] == {"best": 1208, "average": None, "worst": 3624}
    assert [m["name"] for m in report["modules"]][:2] == ["top", "producer_0"]
    project = result["details"]["project"]
    tcl = open(os.path.join(project, "run.tcl")).read()
    assert "set_part xczu7ev-ffvc1156-2-e\n" in tcl and "create_clock -period 5 -name default" in tcl
    assert "Finished generating all RTL models" in open(os.path.join(project, "vitis.log")).read()


def test_the_synthesis_result_carries_the_report_as_allo_lsp_report_prints_it():
    """One encoding: `synth --format json` holds the report `report --format json` prints."""
    result, rc = synth(f"{EXAMPLES / 'producer_consumer.py'}::top")
    assert rc == 0, result["message"]
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "report", result["artifact"], "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == result["details"]["report"]
    assert "log" not in result["details"] and "report_markdown" not in result["details"]  # left out as bulky


def test_vitis_run_command_of_newer_vitis():
    result, _ = synth(f"{EXAMPLES / 'producer_consumer.py'}::top", "--vitis-command", "vitis-run")
    assert result["status"] == "passed"


@pytest.mark.parametrize(
    ("vitis", "needle"),
    [
        ("exit0_errors", "ERROR [HLS 207-812] 'ap_int.h' file not found"),  # exits 0, and failed
        ("missing_part", "ERROR [HLS 200-1611] Part 'xcu280-fsvh2892-2L-e' is not installed."),
        ("license", "Unable to checkout a license"),
        ("crash", "Abnormal program termination (11)"),
    ],
)
def test_failures_are_the_tools_own_words(vitis, needle):
    result, rc = synth(f"{EXAMPLES / 'producer_consumer.py'}::top", vitis=vitis)
    assert rc == 1 and (result["status"], result["cause"]) == ("failed", "synthesis")
    assert needle in result["message"]


def test_no_vitis_on_path_is_a_clear_message(tmp_path):
    env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"}
    result, _ = synth(f"{EXAMPLES / 'producer_consumer.py'}::top", path_has_vitis=False, env_extra=env)
    assert (result["status"], result["cause"]) == ("error", "environment")
    assert "vitis_hls is not on PATH" in result["message"] and "launcherPrefix" in result["message"]


def test_launcher_prefix_runs_the_same_job_through_the_scheduler(tmp_path):
    record = tmp_path / "srun.log"
    result, _ = synth(
        f"{EXAMPLES / 'producer_consumer.py'}::top",
        "--launcher-prefix",
        "srun-standin -p fpga -t 4:00:00",
        env_extra={"SRUN_STANDIN_LOG": str(record)},
    )
    assert result["status"] == "passed"
    assert record.read_text().split() == ["-p", "fpga", "-t", "4:00:00", "vitis_hls", "-f", "run.tcl"]


def test_hang_times_out():
    result, _ = synth(f"{EXAMPLES / 'producer_consumer.py'}::top", "--timeout", "2", vitis="hang")
    assert result["status"] == "timeout"


def test_a_report_left_by_an_earlier_run_does_not_count(tmp_path):
    report = tmp_path / "out.prj" / "solution1" / "syn" / "report"
    report.mkdir(parents=True)
    (report / "csynth.xml").write_text(
        (STANDIN.parent / "reports" / "fixtures" / "vitis_2023_1_dataflow.xml").read_text()
    )
    os.utime(report / "csynth.xml", (time.time() - 3600, time.time() - 3600))
    quiet = ToolRun(
        returncode=0, log="INFO: [HLS 200-10] Running 'vitis_hls'\n", timed_out=False, cancelled=False, duration_s=1.0
    )
    result = _judge(quiet, str(tmp_path), time.time(), "top")
    assert (result.status, result.cause) == ("failed", "synthesis")
    assert result.message == "Vitis HLS wrote no csynth.xml in this run"


def test_unknown_region(tmp_path):
    result, rc = synth(f"{design(tmp_path)}::nope")
    assert rc == 1 and result["cause"] == "environment" and "no region named 'nope'" in result["message"]
