"""Hostile names on the cluster paths (issue 25, item 11), through the real server over stdio
against the real local cluster: a synthesis or a sweep of a name that is not the document's
(a newline and a command, a path, a `;`, an unknown name) is refused with a message before any
job directory is made or anything is submitted. The old server named the job directory after
the region and wrote it into a comment line of job.sh, so a newline in the name became a line
the node's shell ran."""

import subprocess
import sys

from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from cluster import PARTITION
from designs import design, fake_llvm_build_dir, pids
from editor import Editor, make_client
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities

CLIENT = "visual_studio_code"


# The job runs in its directory: a command that ran leaves PWNED there.
NAMES = {
    "a newline and a command": "top\ntouch PWNED #",
    "a semicolon": "top; touch PWNED #",
    "a path": "../../x",
    "a name the file lacks": "nope",
}


def _jobs(slurm_cluster) -> list[str]:
    """The cluster's jobs of allo-lsp, finished ones too."""
    out = slurm_cluster.run("squeue", "-h", "-t", "all", "-o", "%j").stdout
    return [name for name in out.split() if name.startswith("allo-lsp")]


async def test_a_cluster_synthesis_or_sweep_of_a_name_not_the_documents_submits_nothing(
    cluster_env, slurm_cluster, tmp_path
):
    path, storage = design(tmp_path), tmp_path / "storage"
    before = _jobs(slurm_cluster)
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", env=cluster_env)
    client.editor = Editor(client, CLIENT)
    settings = {"llvmBuildDir": fake_llvm_build_dir(), "scheduler": "slurm", "slurm": {"partition": PARTITION}}
    client.set_configuration({"trusted": True, **settings}, section="alloDataflow")
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities(CLIENT),
            root_uri=tmp_path.as_uri(),
            initialization_options={WORKSPACE_STORAGE: str(storage)},
        )
    )
    answers = []
    try:
        uri = client.editor.open(path.read_text(), path=path)
        await client.editor.diagnostics(uri)
        for label, name in NAMES.items():
            for command, arguments in (("synthesize", [uri, name]), ("sweep", [uri, name, ["clock=3.33,5"]])):
                answer = await client.workspace_execute_command_async(
                    lsp.ExecuteCommandParams(command=f"alloDataflow.{command}", arguments=arguments)
                )
                answers.append((label, command, answer["status"], answer["message"]))
    finally:
        await client.shutdown_session()
    for label, command, status, message in answers:
        assert status == "error" and "\n" not in message, (label, command, message)
        assert "not the name of a region" in message or "no region named 'nope'" in message, (label, message)
    assert not (storage / "jobs").exists() or list((storage / "jobs").iterdir()) == []
    assert _jobs(slurm_cluster) == before, "a job was submitted"
    assert list(tmp_path.rglob("PWNED")) == [] and pids(path) == []


def test_a_cluster_sweep_of_a_name_not_the_files_submits_nothing(cluster_env, slurm_cluster, tmp_path):
    """`allo-lsp sweep FILE::NAME --scheduler slurm`: the old CLI submitted the array with the
    name in its job directory and batch script. (A well-formed name the file lacks is the sweep
    command's own check, `jobs/sweep.py`.)"""
    path, before = design(tmp_path), _jobs(slurm_cluster)
    for label, name in NAMES.items():
        if name.isidentifier():
            continue
        out = subprocess.run(
            [sys.executable, "-m", "allo_lsp", "sweep", f"{path}::{name}", "--scheduler", "slurm"]
            + ["--partition", PARTITION, "--set", "clock=3.33,5", "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env=cluster_env,
            cwd=tmp_path,
        )
        assert out.returncode != 0, (label, out.stdout)
    state = tmp_path / "state"  # the CLI's storage (XDG_STATE_HOME)
    assert [p for p in state.rglob("*") if p.is_dir() and p.parent.name == "jobs"] == []
    assert _jobs(slurm_cluster) == before, "a job was submitted"
    assert list(tmp_path.rglob("PWNED")) == [] and pids(path) == []
