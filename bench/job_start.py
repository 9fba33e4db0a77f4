"""Job start: from the `alloDataflow.run` command to the runner executing the user's code.

    .venv/bin/python bench/job_start.py [--json] [--quick] [--runs 10] [--pause 1.0]

The design file holds a generated region and its tests (bench/generate.py) and a test function
`test_job_start` whose body only writes `time.time()` to a file; the file's first statement
records `time.time()` too, before its imports (numpy, allo). The client runs the test through
`workspace/executeCommand` `alloDataflow.run` [uri, "test_job_start"] on a warmed-up
`allo-lsp serve` (the file analysed; `alloBuild` "fixed", so no build probe runs alongside) and
reads the two times back: job start = the test function's first line minus the wall-clock time
just before the command was sent.

Against, in the same run and interleaved: a cold interpreter doing the least a job needs, from
spawn to its code running after `import numpy` (`python -c "import numpy; ..."`), and the spawn
to exit of `python -c pass`. Goal: job start at least 3x faster than the cold start.
`--pause` seconds separate the runs (a user does not click twice within a second).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import common
from common import fmt_ms, fmt_x, ratio
from generate import generate
from lsp_client import LspServer

FULL = {"runs": 10, "pause": 1.0}
QUICK = {"runs": 1, "pause": 0.2}
TEST = "test_job_start"


def design(stamp: Path) -> str:
    body = generate(120).text.split("\n", 1)[1]  # without the generated docstring
    return (
        '"""Job-start benchmark design (bench/job_start.py)."""\n'
        "import time as _bench_time\n\n"
        "_BENCH_LOADED = _bench_time.time()\n"
        f"{body}\n\n"
        f"def {TEST}():\n"
        "    started = _bench_time.time()\n"
        f"    with open({str(stamp)!r}, 'w') as f:\n"
        "        f.write(f'{_BENCH_LOADED!r} {started!r}')\n"
    )


def read_stamp(stamp: Path) -> tuple[float, float] | None:
    try:
        loaded, started = stamp.read_text().split()
        return float(loaded), float(started)
    except (OSError, ValueError):
        return None


def cold_numpy(stamp: Path) -> float:
    """Spawn to code running after `import numpy` in a fresh interpreter (wall clock, seconds)."""
    stamp.unlink(missing_ok=True)
    code = f"import numpy, time; open({str(stamp)!r}, 'w').write(repr(time.time()))"
    t0 = time.time()
    subprocess.run([sys.executable, "-c", code], timeout=120, check=True)
    return float(stamp.read_text()) - t0


def python_pass() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], timeout=60, check=True)
    return time.perf_counter() - t0


async def measure(runs: int, pause: float) -> dict:
    # As VS Code sends them in a trusted workspace: the server runs no job until told it is trusted.
    settings = {common.SECTION: {"alloBuild": "fixed", "debounceMs": 0, "trusted": True}}
    jobs: list[dict] = []
    cold, floor = [], []
    errors = []
    with common.Workspace() as ws:
        stamp = ws.root / "stamp.txt"
        cold_stamp = ws.root / "cold.txt"
        text = design(stamp)
        path, uri = ws.write("job_design.py", text)
        env = dict(os.environ)
        server = await LspServer.start(common.our_server(), settings=settings, cwd=str(ws.root), env=env)
        try:
            await server.initialize(ws.root, settings)
            await server.open(uri, text)
            await server.wait_diagnostics(uri, 1, 0, timeout=120)
            await asyncio.sleep(pause)
            for i in range(runs):
                stamp.unlink(missing_ok=True)
                t_wall = time.time()
                t0 = time.perf_counter()
                try:
                    result, received = await server.request(
                        "workspace/executeCommand",
                        {"command": "alloDataflow.run", "arguments": [uri, TEST]},
                        timeout=300,
                    )
                except Exception as exc:  # noqa: BLE001
                    errors.append(f"run {i}: {type(exc).__name__}: {exc}")
                    break
                found = read_stamp(stamp)
                status = result.get("status") if isinstance(result, dict) else None
                if found is None:
                    errors.append(
                        f"run {i}: the test did not run (status {status}: "
                        f"{result.get('message') if isinstance(result, dict) else result})"
                    )
                    break
                loaded, started = found
                jobs.append(
                    {
                        "start_s": started - t_wall,
                        "module_s": loaded - t_wall,
                        "round_trip_s": received - t0,
                        "status": status,
                        "backend": result.get("backend"),
                    }
                )
                await asyncio.sleep(pause)
                cold.append(cold_numpy(cold_stamp))
                floor.append(python_pass())
                await asyncio.sleep(pause)
        finally:
            await server.close()
    start = common.stats_ms([j["start_s"] for j in jobs])
    rest = common.stats_ms([j["start_s"] for j in jobs[1:]])
    cold_stats = common.stats_ms(cold)
    out = {
        "runs": runs,
        "pause_s": pause,
        "job_start": start,
        "job_start_first": common.stats_ms([j["start_s"] for j in jobs[:1]]),
        "job_start_after_first": rest,
        "job_module_start": common.stats_ms([j["module_s"] for j in jobs]),
        "job_round_trip": common.stats_ms([j["round_trip_s"] for j in jobs]),
        "statuses": sorted({str(j["status"]) for j in jobs}),
        "backends": sorted({str(j["backend"]) for j in jobs}),
        "cold_python_import_numpy": cold_stats,
        "cold_python_c_pass": common.stats_ms(floor),
        "speedup_vs_cold_p50": ratio(cold_stats.get("p50_ms"), start.get("p50_ms")),
        "goal_speedup_ge_3x": None,
        "definition": "job start: wall clock from just before sending alloDataflow.run to the first line of the "
        "test function; cold: spawn of `python -c 'import numpy; ...'` to its code after the import; "
        "speedup = cold p50 / job start p50",
    }
    if out["speedup_vs_cold_p50"] is not None:
        out["goal_speedup_ge_3x"] = out["speedup_vs_cold_p50"] >= 3.0
    if errors:
        out["errors"] = errors
    return out


def summarize(r: dict) -> str:
    rows = [
        f"Job start ({r['job_start'].get('n', 0)} runs of alloDataflow.run, backend {', '.join(r['backends'])}):",
        f"  command -> test function running: p50 {fmt_ms(r['job_start'].get('p50_ms'))}"
        f" (first {fmt_ms(r['job_start_first'].get('p50_ms'))}, later p50 {fmt_ms(r['job_start_after_first'].get('p50_ms'))});"
        f" module's first line p50 {fmt_ms(r['job_module_start'].get('p50_ms'))}; whole command p50 {fmt_ms(r['job_round_trip'].get('p50_ms'))}",
        f"  cold python + import numpy: p50 {fmt_ms(r['cold_python_import_numpy'].get('p50_ms'))};"
        f" python -c pass p50 {fmt_ms(r['cold_python_c_pass'].get('p50_ms'))}",
        f"  speedup vs cold: {fmt_x(r['speedup_vs_cold_p50'])} (goal >= 3x: {r['goal_speedup_ge_3x']})",
    ]
    if r.get("errors"):
        rows.append(f"  errors: {r['errors']}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--runs", type=int)
    p.add_argument("--pause", type=float)
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    return common.run("job_start", lambda: measure(**cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
