"""A real single-node Slurm cluster on localhost for the cluster tests (`cluster.py`), started
once per session; skipped where it cannot run (not root, the packages missing)."""

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cluster
from paths import STANDIN


@pytest.fixture(scope="session")
def slurm_cluster():
    why = cluster.missing()
    if why is not None:
        pytest.skip(f"no local Slurm cluster: {why}")
    # Not under pytest's 0700 temporary directories: munged wants every directory above its
    # socket searchable.
    running = cluster.start(Path(tempfile.mkdtemp(prefix="allo-lsp-slurm-")))
    yield running
    running.stop()


@pytest.fixture
def cluster_env(slurm_cluster, tmp_path, monkeypatch) -> dict[str, str]:
    """This process's environment, and the one to give a server or CLI: the cluster
    (SLURM_CONF), the stand-in Allo and Vitis (the jobs export it to the node), the workspace's
    storage in the test's directory."""
    env = {
        **slurm_cluster.env,
        "PYTHONPATH": str(STANDIN),
        "PATH": f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "VITIS_STANDIN": "ok",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("LLVM_BUILD_DIR", raising=False)
    return dict(os.environ)
