"""`allo-lsp sweep --scheduler slurm`: the points as one job array on the real local cluster."""

import json
import os
import re
import subprocess
import sys

from allo_lsp.jobs import slurm
from allo_lsp.jobs.registry import Registry
from allo_lsp.jobs.slurm_jobs import storage_dir
from cluster import PARTITION
from designs import design


def test_a_four_point_sweep_is_one_array_job_with_its_table(cluster_env, slurm_cluster, tmp_path):
    path = design(tmp_path)
    before = path.read_bytes()
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "sweep", f"{path}::top", "--set", "ALLO_STANDIN=ok,build_error"]
        + ["--set", "clock=3.33,5", "--scheduler", "slurm", "--partition", PARTITION, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=cluster_env,
    )
    assert out.returncode == 1, out.stderr  # the two build_error points failed
    job_id = re.search(r"4 points as Slurm job array (\d+)", out.stderr).group(1)
    tasks = slurm.parse_states(slurm_cluster.run("scontrol", "-o", "show", "job", job_id).stdout)
    assert sorted(t.task for t in tasks) == [0, 1, 2, 3]
    assert sorted((t.task, t.state) for t in tasks) == [
        (0, "COMPLETED"),
        (1, "COMPLETED"),
        (2, "FAILED"),
        (3, "FAILED"),
    ]
    rows = json.loads(out.stdout)
    assert [(r["point"]["ALLO_STANDIN"], r["point"]["clock"], r["status"], r["latency"]) for r in rows] == [
        ("ok", 3.33, "passed", 3624),
        ("ok", 5.0, "passed", 3624),
        ("build_error", 3.33, "error", None),
        ("build_error", 5.0, "error", None),
    ]
    # Equal cycles; 3.33 ns misses timing (the stand-in template's slack of -0.05 ns): 5 ns alone is on the front.
    assert [r["pareto"] for r in rows] == [False, True, False, False]
    assert path.read_bytes() == before
    assert Registry(storage_dir(None)).entries() == []  # collected, so no longer recorded


def test_a_refused_array_leaves_no_job_directory(cluster_env, slurm_cluster, tmp_path):
    """1,002 points are more array tasks than the cluster's MaxArraySize (1001 by default):
    sbatch refuses the array, and its job directory (a point directory each) is removed (a
    refused 100,000-point array left 100,006 directories)."""
    path = design(tmp_path)
    values = ",".join(str(n) for n in range(1, 1003))
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "sweep", f"{path}::top", "--set", f"M={values}", "--max-points", "2000"]
        + ["--scheduler", "slurm", "--partition", PARTITION],
        capture_output=True,
        text=True,
        timeout=300,
        env=cluster_env,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert "array" in out.stderr.lower(), out.stderr
    jobs = os.path.join(storage_dir(None), "jobs")
    assert os.listdir(jobs) == []
    assert Registry(storage_dir(None)).entries() == []
