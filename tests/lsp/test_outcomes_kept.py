"""What a document shows of its jobs, through the server (issue 17: D2, D3, D5, D6, D13).

Problems and lens titles are kept per job (target and kind): replaced by the next run of the
same job, cleared by an edit that invalidates them, never lost by another kind's run. The runner
imports the stand-in Allo (tests/standin).
"""

import asyncio
import os
import sys

from conftest import JOB_SETTINGS
from designs import design, line_of
from editor import find
from lsprotocol import types as lsp
from waiting import file_poll, reconfigured, until


async def open_design(editor, tmp_path, extra="", edit=lambda text: text):
    path = design(tmp_path, extra=extra)
    path.write_text(edit(path.read_text()))
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    return path, uri


def run_codes(editor, uri: str) -> set[str]:
    return {d.code for d in editor.run_diagnostics(uri)}


async def test_a_run_that_passes_clears_the_failure_of_the_run_before(job_editor, tmp_path):
    """D2: the failure's diagnostic stayed after a run that passed (the server dropped it
    without publishing)."""
    flag = tmp_path / "fail"
    flag.write_text("")
    extra = (
        "\n\ndef test_flag():\n    import os\n    mod = df.build(top, target='simulator')\n"
        f"    assert not os.path.exists({str(flag)!r}), 'the flag is set'\n"
    )
    path, uri = await open_design(job_editor, tmp_path, extra)
    failed = await job_editor.click(uri, "▶ Run", "test_flag")
    assert failed["cause"] == "assertion"
    (diag,) = await job_editor.until_published(uri, lambda: job_editor.run_diagnostics(uri), "the failure")
    assert diag.range.start.line == line_of(path, "the flag is set") - 1
    flag.unlink()
    assert (await job_editor.click(uri, "▶ Run", "test_flag"))["status"] == "passed"
    await job_editor.until_published(uri, lambda: run_codes(job_editor, uri) == set(), "no job problem")
    (lens,) = [lens for lens in await job_editor.lenses(uri) if lens.command.arguments[1] == "test_flag"]
    assert lens.command.title.startswith("▶ Run: ✓ passed")


async def test_a_simulation_leaves_the_synthesis_timing_warning(job_editor, tmp_path):
    """D3: Simulate wiped the timing warning of the synthesis (the stand-in's report has a
    negative slack); each job's problems are its own."""
    _, uri = await open_design(job_editor, tmp_path)
    assert (await job_editor.click(uri, "⚙ Synthesize", "top"))["status"] == "passed"
    await job_editor.until_published(uri, lambda: run_codes(job_editor, uri) == {"timing"}, "the timing warning")
    assert (await job_editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    # The stand-in computes nothing, so the reference executor disagrees: the simulation's own warning.
    await job_editor.until_published(
        uri,
        lambda: run_codes(job_editor, uri) == {"timing", "differential"},
        "the timing and the differential warnings",
    )
    titles = await job_editor.lens_titles(uri)
    assert titles[0].startswith("▶ Simulate: ✓ passed") and titles[1].startswith("⚙ 3,624 cycles")


async def test_an_edit_of_the_region_clears_its_outcome_and_its_lenses_come_back(job_editor, tmp_path):
    """D5: after a quick fix that edited the region, its lenses vanished (asked before the new
    text's analysis, they sit on an edited line) until the editor happened to ask again, 18 s
    later, and then showed the outcome of the text before the fix."""
    _, uri = await open_design(job_editor, tmp_path)
    assert (await job_editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    assert (await job_editor.lens_titles(uri))[0].startswith("▶ Simulate: ✓ passed")
    await job_editor.until_published(uri, lambda: run_codes(job_editor, uri) == {"differential"}, "the warning")
    line, col = find(job_editor.texts[uri], "def top(")
    version = job_editor.type_at(uri, line, col + len("def top("), " ")  # the region's signature changes
    assert "▶ Simulate" not in " ".join(await job_editor.lens_titles(uri))  # on the edited line: left out
    refreshes = job_editor.lens_refreshes
    await job_editor.diagnostics(uri, version)
    assert job_editor.run_diagnostics(uri) == []
    if job_editor.name == "visual_studio_code":  # it can be told to ask again
        await job_editor.until_lenses_refreshed(refreshes + 1)
    assert (await job_editor.lens_titles(uri))[:3] == ["▶ Simulate", "⚙ Synthesize", "MLIR"]


async def test_an_edit_of_another_test_keeps_the_outcome_and_moves_its_problem(job_editor, tmp_path):
    """The other side of D5: an edit inside a definition the job does not reach (another test
    function) leaves the region's outcome, its problem moved with the lines."""
    extra = "\n\ndef test_other():\n    mod = df.build(top, target='simulator')\n"
    path, uri = await open_design(job_editor, tmp_path, extra)
    assert (await job_editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    (warning,) = await job_editor.until_published(uri, lambda: job_editor.run_diagnostics(uri), "the warning")
    version = job_editor.replace_all(
        uri, job_editor.texts[uri].replace("def test_other():\n", "def test_other():\n    x = 1\n    y = 2\n")
    )
    await job_editor.diagnostics(uri, version)
    (moved,) = job_editor.run_diagnostics(uri)
    assert (moved.code, moved.range.start.line) == ("differential", warning.range.start.line)
    assert (await job_editor.lens_titles(uri))[0].startswith("▶ Simulate: ✓ passed")


async def test_a_design_error_found_before_the_build_is_labelled_as_one(job_editor, tmp_path):
    """D6: a bare scalar parameter (ADF001), which no input can be made for, was labelled
    `✗ environment`, with no line."""

    def bare_scalar(text):
        return text.replace("n: int32[1], B", "n: int32, B")

    path, uri = await open_design(job_editor, tmp_path, edit=bare_scalar)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    line = line_of(path, "def top(")
    assert (result["status"], result["cause"], result["line"]) == ("error", "allo_error", line), result
    assert "bare scalar (ADF001)" in result["message"]
    assert (await job_editor.lens_titles(uri))[0] == f"▶ Simulate: ✗ allo_error line {line}"
    (diag,) = await job_editor.until_published(uri, lambda: job_editor.run_diagnostics(uri), "the design error")
    assert (diag.code, diag.range.start.line) == ("allo_error", line - 1)


def _warm_runners(server_pid: int) -> list[tuple[int, bytes]]:
    """(pid, interpreter) of the server's pre-started runners, from /proc."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if b"--warm" in argv and int(stat[stat.rindex(b")") + 2 :].split()[1]) == server_pid:
            found.append((int(entry), argv[0]))
    return found


async def _exited(pid: int, timeout: float) -> None:
    """Until process `pid` has ended (its pidfd is readable then)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    loop = asyncio.get_running_loop()
    ended = loop.create_future()
    loop.add_reader(fd, lambda: ended.done() or ended.set_result(None))
    try:
        await asyncio.wait_for(ended, timeout)
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def test_a_change_of_interpreter_lets_the_prestarted_runner_go(job_editor, tmp_path):
    """D13: the runner pre-started for the previous `alloDataflow.python` stayed, idle, for as
    long as the server lived."""
    _, uri = await open_design(job_editor, tmp_path)
    assert (await job_editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    server = job_editor.client._server.pid
    ((warm, interpreter),) = await until(
        lambda: _warm_runners(server), what="the pre-started runner", wake=file_poll, seen=lambda: _warm_runners(server)
    )
    assert interpreter == sys.executable.encode()
    other = tmp_path / "python"
    other.symlink_to(sys.executable)
    client = job_editor.client

    def send():
        client.set_configuration({**JOB_SETTINGS, "python": str(other)}, section="alloDataflow")
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))

    await reconfigured(client, "alloDataflow", send)
    await _exited(warm, 10)
