"""The report view's change since the previous run of a region survives a restart of the server:
each region's newest report is kept in the workspace's storage (`jobs/previous_reports.py`), by
file::region and what it was synthesized for (the part). Real servers over stdio, one after the
other, synthesizing with the stand-in Vitis HLS."""

import json
import os
import sys

import pytest
from allo_lsp.jobs.previous_reports import FILE
from allo_lsp.jobs.slurm_jobs import storage_dir
from designs import design, fake_llvm_build_dir
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import STANDIN
from pytest_lsp import client_capabilities

CLIENT = "visual_studio_code"
CHANGE = "### Change since the previous run"


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """The workspace's storage in the test's directory, for the servers and this process alike."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LLVM_BUILD_DIR"}
    env["PYTHONPATH"] = str(STANDIN)  # the stand-in Allo, for the runner
    env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # the stand-in vitis_hls
    return env


async def _server(tmp_path, settings: dict | None = None, log_file=None):
    client = make_client()
    extra = ["--log-file", str(log_file)] if log_file else []
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", *extra, env=_env())
    client.editor = Editor(client, CLIENT)
    client.set_configuration(
        {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 20, **(settings or {})},
        section="alloDataflow",
    )
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities(CLIENT), root_uri=tmp_path.as_uri())
    )
    return client


async def _synthesized_report(client, path) -> dict:
    """Open the design, synthesize `top`, and answer what its report view shows."""
    uri = client.editor.open(path.read_text(), path=path)
    await client.editor.diagnostics(uri)
    result = await client.editor.click(uri, "⚙ Synthesize", "top")
    assert result["status"] == "passed", result["message"]
    return await client.editor.click(uri, "Report", "top")


async def test_the_change_since_the_previous_run_survives_a_restart(tmp_path):
    path = design(tmp_path)
    first = await _server(tmp_path)
    try:
        before = await _synthesized_report(first, path)
    finally:
        await first.shutdown_session()
    assert before["report"] and before["previous"] is None and CHANGE not in before["markdown"]

    second = await _server(tmp_path)
    try:
        after = await _synthesized_report(second, path)
    finally:
        await second.shutdown_session()
    assert after["previous"] == before["report"]  # the first server's report, from disk
    assert after["markdown"].rstrip().endswith(f"{CHANGE}\n\nNo figure changed.")  # the stand-in's figures

    # A run for another part follows no report of this region: its previous is not "the run before".
    third = await _server(tmp_path, {"vitis": {"part": "xc7z020clg400-1"}})
    try:
        other = await _synthesized_report(third, path)
    finally:
        await third.shutdown_session()
    assert other["report"]["part"] == "xc7z020clg400-1" and other["previous"] is None


async def test_a_corrupt_store_is_logged_and_written_afresh(tmp_path):
    storage = storage_dir(str(tmp_path))
    os.makedirs(storage)
    with open(os.path.join(storage, FILE), "w") as f:
        f.write('{"reports": {"half a')  # a file cut short
    log_file = tmp_path / "server.log"
    client = await _server(tmp_path, log_file=log_file)
    try:
        view = await _synthesized_report(client, design(tmp_path))
    finally:
        await client.shutdown_session()
    assert view["report"] and view["previous"] is None
    assert f"{FILE} is unreadable" in log_file.read_text() and "set aside" in log_file.read_text()
    with open(os.path.join(storage, f"{FILE}.unreadable")) as f:
        assert f.read() == '{"reports": {"half a'  # kept to look at
    with open(os.path.join(storage, FILE)) as f:
        (entry,) = json.load(f)["reports"].values()  # written afresh, with this run's report
    assert entry["report"] == view["report"]
