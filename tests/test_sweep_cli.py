"""`allo-lsp sweep`: every combination of constants and settings synthesized (stand-in Allo and
Vitis HLS), one table with the Pareto front; the user's file never edited."""

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from allo_lsp.jobs.points import PointError, apply_constants
from allo_lsp.jobs.sweep import Row, SweepError, mark_pareto, parse_sets, points_of
from designs import design
from paths import STANDIN


def sweep(target: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(STANDIN)
    env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env['PATH']}"
    env.pop("VITIS_STANDIN", None)
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "sweep", target, *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_four_points_each_with_its_constants_and_clock_in_one_table(tmp_path):
    path = design(tmp_path)  # ALLO_STANDIN = "ok" at module level: the stand-in obeys it
    before = path.read_bytes()
    out = sweep(f"{path}::top", "--set", "ALLO_STANDIN=ok,build_error", "--set", "clock=3.33,5", "--format", "json")
    assert out.returncode == 1, out.stderr  # two points failed
    rows = json.loads(out.stdout)
    assert [(r["point"], r["status"]) for r in rows] == [
        ({"ALLO_STANDIN": "ok", "clock": 3.33}, "passed"),
        ({"ALLO_STANDIN": "ok", "clock": 5.0}, "passed"),
        ({"ALLO_STANDIN": "build_error", "clock": 3.33}, "error"),
        ({"ALLO_STANDIN": "build_error", "clock": 5.0}, "error"),
    ]
    assert all(r["latency"] == 3624 and r["ii"] == 1813 and r["resources"]["LUT"] == 0.32 for r in rows[:2])
    assert "missing required 'mapping' parameter" in rows[2]["message"]  # the point's constant, applied
    for row, clock in zip(rows[:2], ("3.33", "5")):
        tcl = open(os.path.join(row["project"], "run.tcl")).read()
        assert f"create_clock -period {clock} -name default" in tcl
    assert path.read_bytes() == before


def test_csv_and_text_tables(tmp_path):
    path = design(tmp_path)
    out = sweep(f"{path}::top", "--set", "M=4,8", "--format", "csv")
    assert out.returncode == 0, out.stderr
    table = list(csv.DictReader(io.StringIO(out.stdout)))
    assert [(r["M"], r["status"], r["latency"], r["LUT%"]) for r in table] == [
        ("4", "passed", "3624", "0.32"),
        ("8", "passed", "3624", "0.32"),
    ]
    text = sweep(f"{path}::top", "--set", "M=4", "--jobs", "1")
    assert text.returncode == 0, text.stderr
    header, first = text.stdout.splitlines()[:2]
    assert header.split()[:4] == ["M", "status", "latency", "II"] and first.split()[:3] == ["4", "passed", "3624"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--set", "P9=1,2"], "no module-level assignment of P9 in the design"),
        (["--set", "M"], "--set 'M': write NAME=V1,V2"),
        (["--set", "clock=fast"], "--set clock takes clock periods in ns"),
    ],
)
def test_a_sweep_that_cannot_run_says_why_and_runs_nothing(tmp_path, args, needle):
    path = design(tmp_path)
    out = sweep(f"{path}::top", *args)
    assert out.returncode == 2 and needle in out.stderr and out.stdout == ""
    assert not (tmp_path / "pid.txt").exists()  # no runner imported the design


def test_constants_are_replaced_where_the_module_binds_them():
    source = 'M, N = 8, 8\nP0: int = 2  # PEs\nname = "é"; DEPTH = 4\ndef f():\n    P0 = 9\n'
    assert apply_constants(source, {"N": 16, "P0": 4, "DEPTH": 8}) == (
        'M, N = 8, 16\nP0: int = 4  # PEs\nname = "é"; DEPTH = 8\ndef f():\n    P0 = 9\n'
    )
    with pytest.raises(PointError, match="no module-level assignment of Q"):
        apply_constants(source, {"Q": 1})


def test_points_are_every_combination_settings_apart():
    points = points_of(parse_sets(["P0=2,4", "clock=3.33,5", "part=xcu250"]))
    assert [(p.constants, p.clock_ns, p.part) for p in points] == [
        ({"P0": 2}, 3.33, "xcu250"),
        ({"P0": 2}, 5.0, "xcu250"),
        ({"P0": 4}, 3.33, "xcu250"),
        ({"P0": 4}, 5.0, "xcu250"),
    ]
    with pytest.raises(SweepError, match="given twice"):
        parse_sets(["P0=1", "P0=2"])


def test_the_pareto_front_is_the_points_nothing_beats():
    rows = [
        Row({"P": 1}, "passed", latency=4000, resources={"LUT": 10.0, "DSP": 2.0}),
        Row({"P": 2}, "passed", latency=2000, resources={"LUT": 20.0}),
        Row({"P": 4}, "passed", latency=2500, resources={"LUT": 30.0}),  # slower and larger than P=2
        Row({"P": 8}, "passed", latency=1000, resources={"LUT": 20.0, "DSP": 60.0}),
        Row({"P": 16}, "failed"),
    ]
    assert [r.pareto for r in mark_pareto(rows)] == [True, True, False, True, False]
