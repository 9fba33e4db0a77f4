"""How long the editor waits on the cluster: submit-to-running and finish-to-figures of a synthesis
on a local Slurm cluster (the stand-in Allo and Vitis HLS as payload). A benchmark, not a test:

    .venv/bin/python tests/slurm/latency.py [--runs N] [--json]

submit-to-running: from the call that submits to the first poll that sees RUNNING; finish-to-
figures: from the moment the job wrote its result to the outcome collected with its report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "jobs")]

import cluster  # noqa: E402
from allo_lsp.jobs import slurm, slurm_jobs  # noqa: E402
from allo_lsp.jobs.environment import JobConfig  # noqa: E402
from allo_lsp.jobs.slurm import SlurmConfig  # noqa: E402
from allo_lsp.jobs.slurm_batch import RESULT, point_dir  # noqa: E402
from allo_lsp.jobs.synthesis import SynthConfig  # noqa: E402
from designs import design  # noqa: E402
from paths import STANDIN  # noqa: E402


async def one(directory: Path) -> dict:
    path = design(directory)
    spec = slurm_jobs.batch_spec(str(path), "top", path.read_text(), JobConfig(), SynthConfig())
    started = time.time()
    entry = await slurm_jobs.submit(SlurmConfig(), slurm_jobs.storage_dir(str(directory)), spec)
    running: list[float] = []

    def seen(states):
        if states[0].state == slurm.RUNNING and not running:
            running.append(time.time())

    final = await slurm_jobs.wait(SlurmConfig(), entry, seen)
    (outcome,) = slurm_jobs.collect(entry, final)
    collected = time.time()
    assert outcome.status == "passed", outcome.message
    finished = os.path.getmtime(os.path.join(point_dir(entry.job_dir, 0), RESULT))
    return {"submit_to_running_s": running[0] - started, "finish_to_figures_s": collected - finished}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    why = cluster.missing()
    if why:
        print(f"no local Slurm cluster: {why}", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="allo-lsp-slurm-"))
    running = cluster.start(root)
    os.environ.update(running.env)
    os.environ.update({"PYTHONPATH": str(STANDIN), "XDG_STATE_HOME": str(root / "state")})
    os.environ["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}"
    try:
        runs = [asyncio.run(one(Path(tempfile.mkdtemp(dir=root)))) for _ in range(args.runs)]
    finally:
        running.stop()
    summary = {
        key: {"median": statistics.median(r[key] for r in runs), "max": max(r[key] for r in runs)}
        for key in ("submit_to_running_s", "finish_to_figures_s")
    }
    if args.json:
        print(json.dumps({"runs": runs, "summary": summary}, indent=2))
    else:
        for key, figures in summary.items():
            print(f"{key}: median {figures['median']:.2f} s, max {figures['max']:.2f} s over {len(runs)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
