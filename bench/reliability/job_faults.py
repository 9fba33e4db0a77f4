"""Job faults, full run: every way a job can fail, through the real server, timed.

    .venv/bin/python bench/reliability/job_faults.py [--repeat 3] [--json]

The faults (`tests/reliability/faults.py`): a runner that segfaults, aborts, hangs (alone and
with a child), prints 100 MB, prints invalid UTF-8, leaves children behind (in its group, in
sessions of their own, holding its stdout, a daemon), is killed while writing its result, leaves
a torn result or one that is not a result; and the server stopped mid-job by `shutdown`/`exit`,
by the end of its input and by SIGTERM. For each: the outcome, the time from the click to it
(goal: within the job's timeout plus 2 s), whether the progress ended, the processes that
survived (goal: none, checked by pid), the job directories left (goal: none), the time of a
hover right after, the server's RSS around it. Exit status 1 when a goal is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import faults  # noqa: E402
import lsp_session  # noqa: E402


async def run(repeat: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="allo-lsp-faults-"))
    rows: list[dict] = []
    for round_ in range(repeat):
        tmpdir = root / f"tmp{round_}"
        tmpdir.mkdir()
        async with lsp_session.session(faults.job_settings(20), env=faults.job_env(tmpdir)) as s:
            for name, fault in faults.FAULTS.items():
                s.configure(faults.job_settings(fault.timeout))
                await asyncio.sleep(0.5)
                m = await faults.run_fault(s, root / f"{round_}-{name}", tmpdir, fault)
                faults.kill_all(m.survivors)
                row = asdict(m)
                row["message"] = row["message"][:200]
                rows.append(row)
                print(
                    f"  {name}: {m.status}/{m.cause} in {m.seconds} s{' PROBLEMS ' + str(m.problems) if m.problems else ''}",
                    file=sys.stderr,
                    flush=True,
                )
            errors = s.errors_logged(shown=False)
        for how in faults.SHUTDOWNS:
            m = await faults.shutdown_mid_job(root / f"{round_}-shutdown-{how}", how)
            rows.append({"fault": f"server {how} mid-job", **asdict(m)})
            print(
                f"  server {how} mid-job: exit in {m.exit_s} s{' PROBLEMS ' + str(m.problems) if m.problems else ''}",
                file=sys.stderr,
                flush=True,
            )
    summary: dict[str, dict] = {}
    for row in rows:
        entry = summary.setdefault(row["fault"], {"runs": 0, "problems": [], "seconds": []})
        entry["runs"] += 1
        entry["problems"] += row["problems"]
        entry["seconds"].append(row.get("seconds") or row.get("exit_s"))
        for key in ("status", "cause", "limit_s", "log_chars"):
            if key in row:
                entry[key] = row[key]
        if row.get("hover_s") is not None:
            entry["hover_max_s"] = max(entry.get("hover_max_s", 0), row["hover_s"])
        if row.get("rss_before_kib") and row.get("rss_after_kib"):
            entry["rss_change_mb"] = round((row["rss_after_kib"] - row["rss_before_kib"]) / 1024, 1)
        entry["survivors"] = entry.get("survivors", 0) + len(row["survivors"])
        entry["leftover_dirs"] = entry.get("leftover_dirs", 0) + len(row["leftover_dirs"])
    for entry in summary.values():
        entry["max_s"] = max(s for s in entry["seconds"] if s is not None) if any(entry["seconds"]) else None
    return {
        "repeat": repeat,
        "faults": summary,
        "server_errors_logged": errors,
        "problems": sum(len(e["problems"]) for e in summary.values()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(run(args.repeat))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{'fault':34s} {'outcome':24s} {'max s':>7s} {'limit':>6s} {'hover':>6s} survivors dirs problems")
        for name, e in report["faults"].items():
            outcome = f"{e.get('status', 'exit')}/{e.get('cause', '-')}"
            print(
                f"{name:34s} {outcome:24s} {e['max_s']!s:>7s} {e.get('limit_s', faults.EXIT_WITHIN_S)!s:>6s} "
                f"{e.get('hover_max_s', '-')!s:>6s} {e['survivors']:9d} {e['leftover_dirs']:4d} {e['problems'][:2]}"
            )
        print(f"server errors logged: {report['server_errors_logged']}")
    return 1 if report["problems"] or report["server_errors_logged"] else 0


if __name__ == "__main__":
    sys.exit(main())
