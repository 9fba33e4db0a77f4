"""Scaling: time of a first analysis as the file doubles, and the size bound on a file of megabytes.

    .venv/bin/python bench/scaling.py [--json] [--quick] [--sizes 10000,20000,40000] [--big-mb 5.4] [--repeat 3]

Each size is a generated file (bench/generate.py) analysed with the size bound lifted, in a
fresh interpreter (so one size's heap does not slow the next): CPU seconds of `analyze(text)` (under
`host.collection_paused`, as the server and `check` run it),
and the ratio of each size's time to the previous one's. Goal: at most 2.2x per doubling of the
lines (linear cost, with some allowance for a larger heap). Then a file of `--big-mb` megabytes
analysed with the default bound: seconds, peak RSS and what ADF901 said.

`--repeat N` analyses each size N times, in rounds (every size once per round, so a change of the
machine's load falls on every size alike), and keeps each size's least CPU time (`runs` lists
them all): on a shared 2-core machine another process' load inflates CPU seconds too (caches,
memory bandwidth), by up to 40 % from one run to the next (8.75 s and 12.0 s for the same 20,000
lines), enough to move a single run's ratio from 1.7x to 2.4x.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import common
from generate import generate

FULL = {"sizes": (10_000, 20_000, 40_000), "big_mb": 5.4, "repeat": 3}
QUICK = {"sizes": (500, 1_000, 2_000), "big_mb": 0.4, "repeat": 1}
GOAL_PER_DOUBLING = 2.2
LINES_PER_MB = 33_000  # generated design code runs at about 30 bytes a line

# Run in the child: one analysis of the file named by argv[1]; the size bound lifted unless
# argv[2] says "bounded". Prints one JSON line.
_CHILD = """
import json, resource, sys, time
from allo_lsp.analysis import Options, analyze
from allo_lsp.host import collection_paused
text = open(sys.argv[1], encoding="utf-8").read()
options = Options() if sys.argv[2] == "bounded" else Options(max_chars=len(text) + 1)
started = time.process_time()
with collection_paused():  # as the server and check run an analysis (allo_lsp/host.py)
    analysis = analyze(text, options)
seconds = time.process_time() - started
notice = next((p.message for p in analysis.problems if p.code == "ADF901"), None)
print(json.dumps({"seconds": round(seconds, 3), "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  "regions": len(analysis.model.regions), "problems": len(analysis.problems), "notice": notice}))
"""


def _analyse_in_child(path: Path, bounded: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), "bounded" if bounded else "whole"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


async def measure(sizes: tuple[int, ...], big_mb: float, repeat: int) -> dict:
    results, previous = [], None
    with tempfile.TemporaryDirectory(prefix="allo-lsp-scaling-") as tmp:
        paths = [Path(tmp) / f"gen_{lines}.py" for lines in sizes]
        for lines, path in zip(sizes, paths):
            path.write_text(generate(lines).text, encoding="utf-8")
        rounds = [[_analyse_in_child(path, bounded=False) for path in paths] for _ in range(max(repeat, 1))]
        for i, lines in enumerate(sizes):
            runs = [r[i] for r in rounds]
            row = {"lines": lines, **min(runs, key=lambda r: r["seconds"]), "runs": [r["seconds"] for r in runs]}
            row["ratio_to_previous"] = common.ratio(row["seconds"], previous)
            previous = row["seconds"]
            results.append(row)
        big = Path(tmp) / "big.py"
        big.write_text(generate(max(int(big_mb * LINES_PER_MB), 100)).text, encoding="utf-8")
        bounded = {"mb": round(big.stat().st_size / 1e6, 2), **_analyse_in_child(big, bounded=True)}
    ratios = [r["ratio_to_previous"] for r in results[1:] if r["ratio_to_previous"] is not None]
    doublings = all(b == 2 * a for a, b in zip(sizes, sizes[1:]))
    return {
        "first_analysis": results,
        "worst_ratio_per_doubling": max(ratios) if ratios and doublings else None,
        "goal_per_doubling": GOAL_PER_DOUBLING,
        "goal_met": (max(ratios) <= GOAL_PER_DOUBLING) if ratios and doublings else None,
        "repeat": max(repeat, 1),
        "bounded_big_file": bounded,
    }


def summarize(result: dict) -> str:
    lines = [f"first analysis (CPU seconds, size bound lifted; the least of {result['repeat']} runs):"]
    for r in result["first_analysis"]:
        ratio = f"  {common.fmt_x(r['ratio_to_previous'])} the previous" if r["ratio_to_previous"] else ""
        runs = f"  (runs: {', '.join(f'{s:.2f}' for s in r['runs'])})" if len(r["runs"]) > 1 else ""
        lines.append(f"  {r['lines']:>7,} lines  {r['seconds']:7.2f} s  RSS {r['rss_mb']} MB{ratio}{runs}")
    worst = result["worst_ratio_per_doubling"]
    lines.append(
        f"worst ratio per doubling: {common.fmt_x(worst)} (goal <= {GOAL_PER_DOUBLING}x): "
        f"{common.goal(result['goal_met'])}"
    )
    big = result["bounded_big_file"]
    lines.append(
        f"{big['mb']} MB file, default bound: {big['seconds']:.2f} s, RSS {big['rss_mb']} MB; "
        f"ADF901: {big['notice'] or 'none'}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--sizes", type=common.sizes, help="comma-separated line counts (default 10000,20000,40000)")
    p.add_argument("--big-mb", type=float, help="size of the bounded file in MB (default 5.4)")
    p.add_argument("--repeat", type=int, help="runs of each size, the least CPU time kept (default 3; --quick 1)")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    return common.run("scaling", lambda: measure(**cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
