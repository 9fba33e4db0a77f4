"""The server's log (`window/logMessage`) as a user reads it: `alloDataflow.logLevel` decides what
is sent, a job is one line naming its file and region, the probe one line, once per settings.

A job's lines are sent before its command answers, so once `click` returns they have arrived
(messages keep their order on the pipe); the probe's come when it ends, on their own.
"""

import json
import sys

import pytest
from allo_lsp.protocol.vocabulary import LOG_LEVELS
from allo_lsp.settings import Settings, parse_settings
from lsprotocol import types as lsp
from paths import ROOT
from test_jobs import change_settings, open_design
from waiting import notification, until

# The design prints when it is imported, and its test function prints before it fails.
EXTRA = (
    "\nprint('hello from the design')\n\n"
    "def test_fails():\n    mod = df.build(top, target='simulator')\n    print('out of the test')\n"
    "    assert False, 'boom'\n"
)
T = lsp.MessageType
PASSED_LINE = (T.Info, "[top] passed: top simulated (simulate design.py::top, ")
FAILED_LINE = (T.Warning, "[test_fails] failed: assertion failed: boom (run design.py::test_fails, ")
OUTPUTS = [
    (T.Log, "[design.py::top] simulate output:\nhello from the design"),
    (T.Log, "[design.py::test_fails] run output:\nhello from the design\nout of the test"),
]
EXPECTED = {
    "error": [],
    "warn": [FAILED_LINE],
    "info": [PASSED_LINE, FAILED_LINE],
    "debug": [PASSED_LINE, OUTPUTS[0], FAILED_LINE, OUTPUTS[1]],
}
PROBED = "the argument-order probe "


def probe_lines(editor) -> list[lsp.LogMessageParams]:
    return [m for m in editor.client.log_messages if m.message.startswith("allo-lsp:") and PROBED in m.message]


async def until_logged(editor, ready, what: str):
    logs = editor.client.log_messages
    return await until(
        ready,
        what=what,
        wake=notification(editor.client, lsp.WINDOW_LOG_MESSAGE),
        seen=lambda: [(m.type, m.message[:200]) for m in logs],
    )


@pytest.mark.parametrize("level", sorted(EXPECTED))
async def test_the_log_level_decides_what_the_server_logs_of_a_job(editor, tmp_path, level):
    await change_settings(editor, {"debounceMs": 50, "logLevel": level})
    _, uri = await open_design(editor, tmp_path, extra=EXTRA)
    logs = editor.client.log_messages
    before = len(logs)
    assert (await editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    assert (await editor.click(uri, "▶ Run", "test_fails"))["status"] == "failed"
    jobs = [m for m in logs[before:] if not m.message.startswith("allo-lsp:")]  # the probe logs when it ends
    expected = EXPECTED[level]
    assert len(jobs) == len(expected), [(m.type, m.message) for m in jobs]
    for message, (kind, start) in zip(jobs, expected):
        assert (message.type, message.message[: len(start)]) == (kind, start)
    # A job's line is one line; its output only on a line of its own, at debug.
    assert all("\n" not in m.message for m in jobs if m.type != T.Log)


async def test_the_probe_that_could_not_tell_is_logged_once_until_the_settings_change(editor, tmp_path):
    """No Allo here (the reference executor simulates): the probe cannot tell. It used to run,
    and log, again before every job."""
    await change_settings(editor, {"debounceMs": 50, "logLevel": "debug"})
    _, uri = await open_design(editor, tmp_path)
    assert (await editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    (line,) = await until_logged(editor, lambda: probe_lines(editor), "the probe's line")
    # One line, a warning, naming the interpreter and what to set; its outcome is a debug line.
    assert line.type == T.Warning and "\n" not in line.message
    assert f"did not run in {sys.executable} " in line.message and "alloDataflow.alloBuild" in line.message
    await until_logged(
        editor,
        lambda: any(
            m.message.startswith("allo-lsp: the probe's outcome: error") and m.type == T.Log
            for m in editor.client.log_messages
        ),
        "the probe's outcome at debug",
    )
    for _ in range(2):
        assert (await editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    # Cancelling every running job cancels a probe too: none runs (it answers whether one did).
    assert (
        await editor.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command="alloDataflow.cancelJob", arguments=[])
        )
        is False
    )
    # A probe that had ended just before logged before this job's line: none did.
    assert (await editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    assert len(probe_lines(editor)) == 1
    # Other settings (the interpreter named, this time): probed again, once.
    await change_settings(editor, {"debounceMs": 50, "logLevel": "debug", "python": sys.executable})
    assert (await editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    await until_logged(editor, lambda: len(probe_lines(editor)) == 2, "the probe's line for the new settings")


async def test_the_probe_that_tells_is_one_line_at_info(job_editor, tmp_path):
    """The stand-in Allo keeps the declaration order."""
    _, uri = await open_design(job_editor, tmp_path)
    assert (await job_editor.click(uri, "▶ Simulate", "top"))["status"] == "passed"
    logs = job_editor.client.log_messages

    def told():
        return [m for m in logs if m.message.startswith("allo-lsp: the Allo of")]

    (line,) = await until_logged(job_editor, told, "the probe's line")
    assert line.type == T.Info and "\n" not in line.message
    assert line.message.startswith(f"allo-lsp: the Allo of {sys.executable} keeps the declaration order")
    assert not any(m.type == T.Log for m in logs)  # its outcome is a debug line: not at info


def test_log_level_is_one_of_four_as_package_json_says():
    properties = json.loads((ROOT / "package.json").read_text())["contributes"]["configuration"]["properties"]
    assert tuple(properties["alloDataflow.logLevel"]["enum"]) == LOG_LEVELS
    assert Settings().log_level == properties["alloDataflow.logLevel"]["default"] == "info"
    for level in ("error", "warn", "info", "debug"):
        assert parse_settings({"logLevel": level}) == (Settings(log_level=level), [])
    settings, (warning,) = parse_settings({"logLevel": "verbose"})
    assert settings == Settings() and "logLevel must be one of error, warn, info, debug" in warning
