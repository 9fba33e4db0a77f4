"""Soak, full run: 20,000 random operations from a client on the real server over stdio.

    .venv/bin/python bench/reliability/soak.py [--operations 20000] [--seed 0]
                                               [--client visual_studio_code|neovim] [--json]

What the operations are and what must hold: `tests/reliability/soak.py` (the CI test runs
1,000). Prints the operation counts, every problem found (none is the goal), request latency
percentiles per method (goal: p99 under 50 ms), and the server's RSS after the warm-up (the
first tenth), at the end and at its highest (goal: growth under 20 MB). Exit status 1 when a
goal is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import soak  # noqa: E402

P99_GOAL_MS = 50.0
RSS_GOAL_KIB = 20 * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--operations", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--client", default="visual_studio_code", choices=["visual_studio_code", "neovim"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    def progress(op: int, report) -> None:
        if op and op % 2000 == 0:
            print(
                f"  {op} operations, {len(report.problems)} problems, RSS {report.rss_samples[-1][1] / 1024:.1f} MB",
                file=sys.stderr,
                flush=True,
            )

    report = asyncio.run(soak.Soak(args.operations, args.seed, args.client, progress=progress).run())
    latencies = report.latencies()
    figures = {
        "operations": report.operations,
        "requests": report.requests,
        "client": args.client,
        "seconds": report.seconds,
        "counts": report.counts,
        "problems": len(report.problems),
        "first_problems": report.problems[:20],
        "server_alive": report.server_alive,
        "diagnostics_compared": report.compared,
        "latency": latencies,
        "rss_start_mb": round((report.rss_start_kib or 0) / 1024, 1),
        "rss_end_mb": round((report.rss_end_kib or 0) / 1024, 1),
        "rss_max_mb": round(report.rss_max_kib / 1024, 1),
        "rss_growth_mb": round((report.rss_growth_kib or 0) / 1024, 1),
        "rss_samples_mb": [
            (op, round(kib / 1024, 1)) for op, kib in report.rss_samples[:: max(len(report.rss_samples) // 20, 1)]
        ],
    }
    requests = {k: v for k, v in latencies.items() if k.startswith("textDocument/")}
    figures["latency_requests"] = report.request_latencies()
    ok = (
        not report.problems
        and report.server_alive
        and figures["latency_requests"].get("p99_ms", 0) < P99_GOAL_MS
        and (report.rss_growth_kib or 0) < RSS_GOAL_KIB
    )
    figures["goals_met"] = ok
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"{report.operations} operations ({report.requests} requests) in {report.seconds} s, client {args.client}"
        )
        print(f"problems: {len(report.problems)}")
        for p in report.problems[:20]:
            print(f"  {p[:400]}")
        print(f"diagnostics compared with an in-process analysis: {report.compared}")
        print(f"requests: {figures['latency_requests']}")
        for method, figure in requests.items():
            print(f"  {method:28s} {figure}")
        print(
            f"RSS: {figures['rss_start_mb']} MB after the warm-up, {figures['rss_end_mb']} MB at the end "
            f"(growth {figures['rss_growth_mb']} MB), {figures['rss_max_mb']} MB at most"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
