"""Cancel on the real local cluster, through the real server over stdio: a synthesis cancelled
while `sbatch` has not answered yet is still scancelled once it does, and an editor sweep's
Cancel scancels its job array (that array alone) and collects it, the registry emptied."""

import asyncio
import os
import shutil
import stat
import sys

import pytest
from allo_lsp.jobs.registry import Registry
from allo_lsp.jobs.slurm import parse_states
from allo_lsp.jobs.slurm_jobs import storage_dir
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from cluster import PARTITION
from designs import alive, design, fake_llvm_build_dir, pids
from editor import Editor, make_client
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities
from waiting import file_poll, until

CLIENT = "visual_studio_code"
GATE_S = 60  # the held sbatch gives up waiting after this, so a failed test leaves no process

# An sbatch that says it was called, waits for the test's go, then submits as the real one and
# keeps its answer (the job id) for the test.
HELD_SBATCH = """#!/bin/sh
touch "$GATE/called"
i=0
while [ ! -e "$GATE/go" ] && [ $i -lt {ticks} ]; do sleep 0.05; i=$((i + 1)); done
out=$({real} "$@"); rc=$?
printf '%s' "$out" > "$GATE/answer"
printf '%s\\n' "$out"
exit $rc
"""


async def _server(env: dict, root, storage=None):
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", env=env)
    client.editor = Editor(client, CLIENT)
    settings = {"llvmBuildDir": fake_llvm_build_dir(), "scheduler": "slurm", "slurm": {"partition": PARTITION}}
    client.set_configuration(settings, section="alloDataflow")
    options = {WORKSPACE_STORAGE: str(storage)} if storage else None
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities(CLIENT), root_uri=root.as_uri(), initialization_options=options
        )
    )
    return client


async def _open(client, path) -> str:
    uri = client.editor.open(path.read_text(), path=path)
    await client.editor.diagnostics(uri)
    return uri


def _command(client, command: str, *arguments) -> asyncio.Future:
    params = lsp.ExecuteCommandParams(command=command, arguments=list(arguments))
    return asyncio.ensure_future(client.workspace_execute_command_async(params))


def _states(cluster, job_id: str) -> list:
    return parse_states(cluster.run("scontrol", "-o", "show", "job", job_id).stdout)


async def test_a_cancel_while_sbatch_has_not_answered_still_scancels_the_job(cluster_env, slurm_cluster, tmp_path):
    gate, bin_dir = tmp_path / "gate", tmp_path / "bin"
    gate.mkdir(), bin_dir.mkdir()
    sbatch = bin_dir / "sbatch"
    sbatch.write_text(HELD_SBATCH.format(ticks=GATE_S * 20, real=shutil.which("sbatch")))
    sbatch.chmod(sbatch.stat().st_mode | stat.S_IEXEC)
    env = {
        **cluster_env,
        "VITIS_STANDIN": "hang",
        "GATE": str(gate),
        "PATH": f"{bin_dir}{os.pathsep}{cluster_env['PATH']}",
    }
    client = await _server(env, tmp_path)
    try:
        path = design(tmp_path)
        uri = await _open(client, path)
        job = _command(client, "alloDataflow.synthesize", uri, "top")
        await until(lambda: (gate / "called").exists() or job.done(), what="the server's sbatch", wake=file_poll)
        assert not job.done(), job.result()
        # Before sbatch's answer: the job has no id yet, but the Cancel is taken.
        assert await _command(client, "alloDataflow.cancelJob", uri, "top", "synthesize") is True
        (gate / "go").touch()
        result = await asyncio.wait_for(job, 60)
        assert result["status"] == "cancelled", result["message"]
        job_id = (gate / "answer").read_text().split(";")[0]
        assert [s.state for s in _states(slurm_cluster, job_id)] == ["CANCELLED"]
        assert Registry(storage_dir(str(tmp_path))).entries() == []
        assert not [p for p in pids(path) if alive(p)]
    finally:
        (gate / "go").touch()
        await client.shutdown_session()


async def test_cancelling_an_editor_sweep_scancels_its_job_array_alone(cluster_env, slurm_cluster, tmp_path):
    path = design(tmp_path)
    storage = tmp_path / "vscode-storage"
    client = await _server({**cluster_env, "VITIS_STANDIN": "hang"}, tmp_path, storage)
    bystander = None
    try:
        uri = await _open(client, path)
        params = lsp.ExecuteCommandParams(command="alloDataflow.sweep", arguments=[uri, "top", ["clock=3.33,5"]])
        request = asyncio.ensure_future(
            client.protocol.send_request_async(lsp.WORKSPACE_EXECUTE_COMMAND, params, msg_id="sweep")
        )
        # Both points' runners started (each records its pid), so the array's tasks run.
        await until(
            lambda: len(pids(path)) >= 2 or request.done(), what="both points running", wake=file_poll, timeout=90
        )
        assert not request.done(), request.result()
        (entry,) = Registry(str(storage)).entries()
        # Another job of the same user on the cluster: the sweep's Cancel must leave it be.
        bystander = slurm_cluster.run(
            "sbatch", "--parsable", "-p", PARTITION, f"--chdir={tmp_path}", "--output=/dev/null", "--wrap", "sleep 600"
        ).stdout.strip()
        client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="sweep"))
        with pytest.raises(Exception, match="cancel"):
            await asyncio.wait_for(request, 10)
        await until(
            lambda: Registry(str(storage)).entries() == [],
            what="the sweep collected and no longer recorded",
            wake=file_poll,
            seen=lambda: [(s.task, s.state) for s in _states(slurm_cluster, entry.job_id)],
            timeout=60,
        )
        assert sorted((s.task, s.state) for s in _states(slurm_cluster, entry.job_id)) == [
            (0, "CANCELLED"),
            (1, "CANCELLED"),
        ]
        await until(
            lambda: not [p for p in pids(path) if alive(p)],
            what="no runner left",
            wake=file_poll,
            seen=lambda: pids(path),
        )
        assert _states(slurm_cluster, bystander)[0].state in ("PENDING", "RUNNING")
    finally:
        if bystander:
            slurm_cluster.run("scancel", bystander, check=False)
        await client.shutdown_session()
