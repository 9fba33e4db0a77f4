"""The editor's sweep (`alloDataflow.sweep`) with `alloDataflow.scheduler` slurm, through the real
server over stdio against the real local cluster: one job array, kept in the storage the editor
gave (initializationOptions.workspaceStorage), collected into the table."""

import re
import sys

from allo_lsp.jobs import slurm
from allo_lsp.jobs.registry import Registry
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from cluster import PARTITION
from designs import design, fake_llvm_build_dir
from editor import Editor, make_client
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities

CLIENT = "visual_studio_code"
PROGRESS = "allo-sweep-progress"  # the notification's token, as the client gives it


async def test_an_editor_sweep_on_the_cluster_is_one_job_array_in_the_editors_storage(
    cluster_env, slurm_cluster, tmp_path
):
    path = design(tmp_path)
    storage = tmp_path / "vscode-storage"
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", env=cluster_env)
    client.editor = Editor(client, CLIENT)
    settings = {"llvmBuildDir": fake_llvm_build_dir(), "scheduler": "slurm", "slurm": {"partition": PARTITION}}
    client.set_configuration(settings, section="alloDataflow")
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities(CLIENT),
            root_uri=tmp_path.as_uri(),
            initialization_options={WORKSPACE_STORAGE: str(storage)},
        )
    )
    try:
        client.progress_reports[PROGRESS] = []  # the client made it (pytest-lsp warns of unknown ones)
        uri = client.editor.open(path.read_text(), path=path)
        await client.editor.diagnostics(uri)
        answer = await client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(
                command="alloDataflow.sweep", arguments=[uri, "top", ["clock=3.33,5"], {"progress": PROGRESS}]
            )
        )
    finally:
        await client.shutdown_session()
    rows = answer["rows"]
    assert [(r["point"]["clock"], r["status"], r["latency"], r["pareto"]) for r in rows] == [
        (3.33, "passed", 3624, False),  # misses timing (the stand-in template's slack of -0.05 ns)
        (5.0, "passed", 3624, True),
    ], answer.get("message")
    assert all(r["report"]["latency"]["worst"] == 3624 for r in rows)
    # One job directory, in the editor's storage, holding one Slurm output per task of one array.
    (job_dir,) = (storage / "jobs").iterdir()
    outputs = sorted(p.name for p in job_dir.glob("slurm-*.out"))
    job_id = re.fullmatch(r"slurm-(\d+)_0\.out", outputs[0]).group(1)
    assert outputs == [f"slurm-{job_id}_0.out", f"slurm-{job_id}_1.out"]
    tasks = slurm.parse_states(slurm_cluster.run("scontrol", "-o", "show", "job", job_id).stdout)
    assert sorted((t.task, t.state) for t in tasks) == [(0, "COMPLETED"), (1, "COMPLETED")]
    assert Registry(str(storage)).entries() == []  # collected, so no longer recorded
    # Each poll that finds more tasks ended says so: one poll may find both.
    messages = [r.message for r in client.progress_reports[PROGRESS]]
    assert messages[-1:] == ["2 of 2 points done"] and set(messages) <= {"1 of 2 points done", "2 of 2 points done"}
