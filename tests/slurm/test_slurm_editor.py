"""Synthesis on the real local cluster from the editor (`alloDataflow.scheduler` slurm), through
the real server over stdio: the lens follows the job's state, Cancel scancels it, and a job
outlives the server that submitted it and is collected by the next."""

import asyncio
import os
import signal
import sys

from allo_lsp.jobs.registry import Registry
from allo_lsp.jobs.slurm import parse_states
from allo_lsp.jobs.slurm_jobs import storage_dir
from cluster import PARTITION
from designs import alive, design, fake_llvm_build_dir, pids
from editor import Editor, make_client
from lsprotocol import types as lsp
from pytest_lsp import client_capabilities
from waiting import file_poll, until

FIGURES = "⚙ 3,624 cycles · II 1,813 · LUT 0.32% · 2.433 ns"  # the stand-in's report
CLIENT = "visual_studio_code"


async def _server(env: dict, root, settings: dict | None = None):
    client = make_client()
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", env=env)
    client.editor = Editor(client, CLIENT)
    client.set_configuration(
        {
            "llvmBuildDir": fake_llvm_build_dir(),
            "scheduler": "slurm",
            "slurm": {"partition": PARTITION},
            **(settings or {}),
        },
        section="alloDataflow",
    )
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities(CLIENT), root_uri=root.as_uri())
    )
    return client


async def _open(client, path) -> str:
    uri = client.editor.open(path.read_text(), path=path)
    await client.editor.diagnostics(uri)
    return uri


async def _synthesis_lens(editor: Editor, uri: str) -> lsp.CodeLens:
    """The region's synthesis lens, whatever its title says: its command, or the Cancel of its job."""
    lenses = await editor.lenses(uri)
    return next(
        lens
        for lens in lenses
        if lens.command.arguments[1] == "top"
        and (lens.command.command == "alloDataflow.synthesize" or list(lens.command.arguments[2:]) == ["synthesize"])
    )


async def _until_title(editor: Editor, uri: str, ready, what: str, timeout: float = 60) -> str:
    """The synthesis lens's title once `ready(title)`, asked again at each lens refresh."""
    titles, loop = [], asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        refreshes = editor.lens_refreshes  # before asking: a refresh while it is answered counts
        titles.append((await _synthesis_lens(editor, uri)).command.title)
        if ready(titles[-1]):
            return titles[-1]
        try:
            await editor.until_lenses_refreshed(refreshes + 1, timeout=max(deadline - loop.time(), 0.01))
        except AssertionError:
            raise AssertionError(f"waited {timeout} s for {what}; the lens said {titles}") from None


def _click(client, lens: lsp.CodeLens) -> asyncio.Future:
    return asyncio.ensure_future(
        client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )
    )


def _job_state(cluster, job_id: str) -> str:
    return parse_states(cluster.run("scontrol", "-o", "show", "job", job_id).stdout)[0].state


async def test_the_lens_follows_the_job_and_shows_the_figures(cluster_env, slurm_cluster, tmp_path):
    client = await _server(cluster_env, tmp_path)
    try:
        uri = await _open(client, design(tmp_path))
        job = _click(client, await _synthesis_lens(client.editor, uri))
        title = await _until_title(
            client.editor, uri, lambda t: t.startswith(("⚙ queued #", "⚙ running")), "the job's state"
        )
        assert title.startswith("⚙ queued #") or title == "⚙ running <1 min", title
        result = await asyncio.wait_for(job, 120)
        assert result["status"] == "passed", result["message"]
        titles = await client.editor.lens_titles(uri)
        assert FIGURES in titles and "Report" in titles
        report = await client.editor.click(uri, "Report", "top")
        assert "| Resource | Used | Available | Utilisation |" in report["markdown"]
        assert Registry(storage_dir(str(tmp_path))).entries() == []
    finally:
        await client.shutdown_session()


async def test_cancel_scancels_the_job_and_leaves_no_process(cluster_env, slurm_cluster, tmp_path):
    env = {**cluster_env, "VITIS_STANDIN": "hang"}
    client = await _server(env, tmp_path)
    try:
        path = design(tmp_path)
        uri = await _open(client, path)
        job = _click(client, await _synthesis_lens(client.editor, uri))
        await _until_title(client.editor, uri, lambda t: t.startswith("⚙ running"), "the job running")
        await until(lambda: pids(path), what="the runner's pid", wake=file_poll)
        (entry,) = Registry(storage_dir(str(tmp_path))).entries()
        running = await _synthesis_lens(client.editor, uri)
        assert running.command.command == "alloDataflow.cancelJob"
        assert await _click(client, running) is True
        result = await asyncio.wait_for(job, 60)
        assert result["status"] == "cancelled"
        assert _job_state(slurm_cluster, entry.job_id) == "CANCELLED"
        assert "⚙ Synthesize: cancelled" in await client.editor.lens_titles(uri)
        assert not [p for p in pids(path) if alive(p)]
    finally:
        await client.shutdown_session()


async def test_a_job_outlives_its_server_and_the_next_collects_it(cluster_env, slurm_cluster, tmp_path):
    """The server is SIGKILLed while its job runs (held at a gate before Vitis starts); the job
    keeps running, and a new server re-attaches to it at its first lens and collects it."""
    gate = tmp_path / "gate"
    launcher = tmp_path / "gated.sh"
    launcher.write_text(f'#!/bin/sh\nwhile [ ! -e "{gate}" ]; do sleep 0.05; done\nexec "$@"\n')
    launcher.chmod(0o755)
    settings = {"vitis": {"launcherPrefix": str(launcher)}}
    path = design(tmp_path)
    first = await _server(cluster_env, tmp_path, settings)
    uri = await _open(first, path)
    job = _click(first, await _synthesis_lens(first.editor, uri))
    await _until_title(first.editor, uri, lambda t: t.startswith("⚙ running"), "the job running")
    (entry,) = Registry(storage_dir(str(tmp_path))).entries()
    os.kill(first._server.pid, signal.SIGKILL)
    await first._server.wait()
    job.cancel()
    assert _job_state(slurm_cluster, entry.job_id) == "RUNNING"  # the cluster's job is not the server's child
    assert [e.job_id for e in Registry(storage_dir(str(tmp_path))).entries()] == [entry.job_id]

    second = await _server(cluster_env, tmp_path, settings)
    try:
        uri = await _open(second, path)
        title = await _until_title(second.editor, uri, lambda t: t.startswith("⚙ running"), "the job re-attached")
        assert title == "⚙ running <1 min"
        gate.write_text("")
        await _until_title(second.editor, uri, lambda t: t == FIGURES, "the figures collected", timeout=120)
        assert _job_state(slurm_cluster, entry.job_id) == "COMPLETED"
        report = await second.editor.click(uri, "Report", "top")
        assert "| Resource | Used | Available | Utilisation |" in report["markdown"]
        assert Registry(storage_dir(str(tmp_path))).entries() == []
    finally:
        await second.shutdown_session()
