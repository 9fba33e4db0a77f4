"""`allo-lsp sweep`: every combination of constants and settings synthesized (stand-in Allo and
Vitis HLS), one table with the Pareto front; the user's file never edited."""

import csv
import io
import json
import os
import subprocess
import sys

import pytest
from allo_lsp.jobs.points import Point, PointError, apply_constants
from allo_lsp.jobs.sweep import Row, SweepError, front, mark_pareto, parse_sets, points_of, row_of, table_text
from allo_lsp.protocol.details import SynthesisDetails
from allo_lsp.protocol.messages import JobResult
from designs import design
from hostile_vitis import huge_lut_path
from paths import STANDIN


def sweep(target: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    env["PYTHONPATH"] = str(STANDIN)
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
        (["--set", "clock=fast"], "--set clock: the clock 'fast' is not a period in ns"),
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
        Row({"P": 1}, "passed", latency=4000, resources={"LUT": 10.0, "DSP": 2.0}, time_ns=4000.0),
        Row({"P": 2}, "passed", latency=2000, resources={"LUT": 20.0}, time_ns=2000.0),
        Row({"P": 4}, "passed", latency=2500, resources={"LUT": 30.0}, time_ns=2500.0),  # slower and larger than P=2
        Row({"P": 8}, "passed", latency=1000, resources={"LUT": 20.0, "DSP": 60.0}, time_ns=1000.0),
        Row({"P": 16}, "failed"),
    ]
    assert [r.pareto for r in mark_pareto(rows)] == [True, True, False, True, False]
    assert front(rows, "DSP") == [0, 3]


def _synthesized(clock: float, latency: int, lut: float, slack: float) -> JobResult:
    report = {
        "latency": {"worst": latency},
        "resources": {"LUT": {"percent": lut}},
        "clock": {"target_ns": clock, "estimated_ns": clock - slack, "slack_ns": slack},
    }
    return JobResult("passed", details=SynthesisDetails(report=report))


def test_the_front_ranks_real_time_among_the_points_that_meet_timing():
    """Issue 26, item 12: a point with negative slack got the star, and 1,000 cycles at 10 ns
    beat 1,500 cycles at 3 ns."""
    outcomes = [
        (5.0, 1000, 10.0, 0.5),  # 5,000 ns
        (10.0, 900, 10.0, 1.0),  # fewer cycles, but 9,000 ns at the same size: beaten
        (3.0, 1500, 10.0, 0.2),  # 4,500 ns: the fastest that meets timing
        (2.0, 1500, 5.0, -0.4),  # 3,000 ns and smallest, but fails timing: never on the front
    ]
    points = [Point({}, clock, "") for clock, *_ in outcomes]
    rows = mark_pareto([row_of(p, ["clock"], _synthesized(*o)) for p, o in zip(points, outcomes)])
    assert [r.time_ns for r in rows] == [5000.0, 9000.0, 4500.0, 3000.0]
    assert [r.meets_timing for r in rows] == [True, True, True, False]
    assert [r.pareto for r in rows] == [False, False, True, False]
    # Marked in the table: the star, and "!" for the point that fails timing.
    text = table_text(rows)
    cells = [line.rstrip().rsplit(" ", 1)[-1] for line in text.splitlines()[1:5]]
    assert cells[2:] == ["*", "!"] and "fails timing" in text


def test_a_point_whose_report_has_an_unreadable_figure_keeps_its_row_and_the_others_theirs(tmp_path):
    """400 digits in one point's LUT raised OverflowError out of that point: the sweep lost its
    whole table, and the other points' tasks, cancelled while starting Vitis, hung the CLI
    (CPython's create_subprocess_exec is not cancel-safe: python/cpython#103847)."""
    path = design(tmp_path)
    out = sweep(
        f"{path}::top",
        "--set",
        "clock=5,3.33,4,6",
        "--set",
        "M=8,16",
        "--format",
        "json",
        env={"PATH": huge_lut_path(tmp_path / "bin", f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}")},
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    rows = json.loads(out.stdout)
    assert [(r["point"]["clock"], r["status"]) for r in rows] == [
        (c, "passed") for c in (5.0, 5.0, 3.33, 3.33, 4.0, 4.0, 6.0, 6.0)
    ]
    for row in rows:
        huge = row["point"]["clock"] == 5.0
        assert ("LUT" in row["resources"]) is not huge and row["latency"] == 3624, row


def test_a_sweep_over_the_point_limit_is_refused_before_anything_runs(tmp_path):
    path = design(tmp_path)
    values = ",".join(str(n) for n in range(1, 101))
    out = sweep(f"{path}::top", "--set", f"M={values}", "--set", f"N={values}")
    assert out.returncode == 2 and out.stdout == ""
    assert "a sweep of 10,000 points is more than the 256 allowed" in out.stderr and "--max-points" in out.stderr
    out = sweep(f"{path}::top", "--set", "M=4,8,16", "--max-points", "2")
    assert out.returncode == 2 and "a sweep of 3 points is more than the 2 allowed" in out.stderr
    assert not (tmp_path / "pid.txt").exists()  # no runner imported the design


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("M=" + "-" * 50_000 + "1", "--set M: a value of 50,001 characters (at most 200)"),
        ("M=" + "+".join(["1"] * 20_000), "--set M: a value of 39,999 characters"),
        ("clock=1e999", "--set clock: '1e999' is not a finite number"),
        ("M=1e999", "--set M: '1e999' is not a finite number"),
    ],
)
def test_hostile_values_are_one_line_not_a_traceback(tmp_path, value, needle):
    path = design(tmp_path)
    out = sweep(f"{path}::top", "--set", value)
    assert out.returncode == 2 and "Traceback" not in out.stderr and needle in out.stderr, out.stderr[-2000:]


@pytest.mark.parametrize("nesting", ["x = " + "(" * 5000 + "1" + ")" * 5000, "x = " + "-" * 100_000 + "1"])
def test_a_design_nested_past_the_parsers_depth_is_a_point_error(nesting):
    source = f"M = 4\n{nesting}\n"
    with pytest.raises(PointError, match="the design cannot be parsed"):
        apply_constants(source, {"M": 8})
    from allo_lsp.jobs.points import module_constants

    assert module_constants(source) == {}


@pytest.mark.parametrize(
    "target_name, sets, message",
    [
        ("nope", ["clock=3.33,5"], "no region named 'nope' in this file"),
        ("top", ["part=xcu250} [exec touch PWNED],x"], "--set part: the part 'xcu250} [exec touch PWNED]'"),
        ("top", ["clock=0,5"], "--set clock: 0 is no clock period"),
    ],
)
def test_a_sweep_of_an_unknown_region_or_a_hostile_value_runs_no_point(tmp_path, target_name, sets, message):
    # Checked once, before any point is made: an unknown region on the cluster was an array of
    # tasks that each failed on the node, a hostile part a refusal per point.
    path = design(tmp_path)
    args = [a for s in sets for a in ("--set", s)]
    out = sweep(f"{path}::{target_name}", *args, "--jobs", "1")
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert not list(tmp_path.glob("**/*.prj")) and not (tmp_path / "PWNED").exists()
