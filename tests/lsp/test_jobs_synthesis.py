"""Synthesis from the editor while Vitis runs (issue 26, items 5 and 6): the running lens cancels
the Vitis process, the progress follows Vitis' phases, the hover links the project's files.

The design chooses the stand-in Vitis' behaviour (`VITIS_STANDIN = "hang"` or `"slow"`, see
tests/standin/README.md); the stand-in writes its pid to vitis_pid.txt beside the design.
"""

import asyncio
from urllib.parse import urlsplit

from designs import alive, design, line_of
from lsprotocol import types as lsp
from waiting import file_poll, until

SYNTH = "⚙ Synthesize"


async def _open(editor, tmp_path, vitis: str):
    path = design(tmp_path, "ok", f'\nVITIS_STANDIN = "{vitis}"\n')
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    return path, uri


def _vitis_pid(path) -> int | None:
    marker = path.parent / "vitis_pid.txt"
    return int(marker.read_text()) if marker.exists() and marker.read_text() else None


async def test_the_running_synthesis_lens_cancels_vitis(job_editor, tmp_path):
    """The lens "running… (click to cancel)" cancelled the target's key while Vitis ran under
    another (`...::vitis`): nothing happened. Now one key: the click ends the job and Vitis."""
    path, uri = await _open(job_editor, tmp_path, "hang")
    running = asyncio.ensure_future(job_editor.click(uri, SYNTH, "top"))
    await until(
        lambda: _vitis_pid(path) is not None or running.done(),
        what="the stand-in Vitis started",
        wake=file_poll,
    )
    assert not running.done(), running.result()
    pid = _vitis_pid(path)
    (lens,) = [
        lens for lens in await job_editor.lenses(uri) if list(lens.command.arguments[1:]) == ["top", "synthesize"]
    ]
    assert "running" in lens.command.title and lens.command.command == "alloDataflow.cancelJob"
    assert (
        await job_editor.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )
        is True
    )
    assert (await asyncio.wait_for(running, 10))["status"] == "cancelled"
    await until(lambda: not alive(pid), what=f"Vitis (pid {pid}) gone", wake=file_poll)


async def test_synthesis_progress_carries_vitis_phases_and_the_hover_links_its_files(job_editor, tmp_path):
    path, uri = await _open(job_editor, tmp_path, "slow")
    result = await job_editor.click(uri, SYNTH, "top")
    assert result["status"] == "passed", result["message"]
    if job_editor.name == "visual_studio_code":  # it supports work-done progress
        reports = list(job_editor.client.progress_reports.values())[-1]
        messages = [r.message for r in reports if r.kind == "report"]
        phases = [
            "compiling",
            "transforming the code",
            "checking synthesizability",
            "pre-synthesis done",
            "hardware synthesis",
            "top: scheduling",
            "top: scheduled",
            "top: binding",
        ]
        seen = [m for i, m in enumerate(messages) if m in phases and m not in messages[:i]]  # first of each
        assert seen == phases, messages
    # The region's hover links the HLS project, its log and its C++.
    line = line_of(path, "def top(") - 1
    hover = await job_editor.hover(uri, line, job_editor.texts[uri].splitlines()[line].index("top") + 1)
    links = {label: target for label, target in _links(hover)}
    assert {"HLS project", "vitis.log", "kernel.cpp"} <= set(links), hover
    for name in ("vitis.log", "kernel.cpp"):
        target = urlsplit(links[name])
        assert target.scheme == "file" and target.path.endswith("/" + name)
        assert open(target.path).read()
    # The report view's answer names the same files (the view links them).
    view = await job_editor.click(uri, "Report", "top")
    assert [(f["label"], f["path"]) for f in view["files"]] == [(k, urlsplit(v).path) for k, v in links.items()]
    assert [f["folder"] for f in view["files"]] == [True, False, False]
    # So does the Files lens beside Report (issue 26, item 6), for editors that show lenses only.
    titles = [
        lens.command.title for lens in await job_editor.lenses(uri) if list(lens.command.arguments[1:2]) == ["top"]
    ]
    assert "Files" in titles and titles.index("Files") == titles.index("Report") + 1, titles
    files = await job_editor.click(uri, "Files", "top")
    assert files["files"] == view["files"]


def _links(markdown: str) -> list[tuple[str, str]]:
    import re

    return re.findall(r"\[([^\]]+)\]\((file:[^)]+)\)", markdown or "")


async def test_a_synthesis_reports_its_phases_on_the_clients_own_token(job_editor, tmp_path):
    """VS Code's client takes no server-made progress (it shows jobs in its status bar item): it
    gives the job command a token of its own, as a sweep's, and shows the phases reported on it."""
    path, uri = await _open(job_editor, tmp_path, "slow")
    job_editor.client.progress_reports["client-1"] = []  # the client made it (pytest-lsp warns of unknown ones)
    result = await job_editor.client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="alloDataflow.synthesize", arguments=[uri, "top", {"progress": "client-1"}])
    )
    assert result["status"] == "passed", result["message"]
    messages = [r.message for r in job_editor.client.progress_reports.get("client-1", []) if r.kind == "report"]
    assert "transforming the code" in messages and "top: scheduled" in messages, messages
    assert messages.index("transforming the code") < messages.index("top: scheduled")
