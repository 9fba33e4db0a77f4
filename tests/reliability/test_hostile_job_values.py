"""Hostile names and values on every job path (issue 25, items 11 and 12): a region or test name
that is not an identifier of the document (a newline and a shell command, a `;`, a path, an
unknown name), an FPGA part that would end a Tcl word (`}`, `[exec ...]`, a backslash, a
newline) and a clock that is no period (`1e999`, `-1`, `nan`), through the real server over stdio
(each job command, the sweep, the settings) and the command line (`run`, `synth`).

Each is refused with a one-line message naming what is wrong, before anything is made: no runner
started (the design writes its pid beside it when imported), no job directory in the server's
temporary directory. One server per test, the names in turn: bounded (a few seconds each).
"""

import json
import os
import subprocess
import sys

import pytest
import pytest_lsp
from designs import design, fake_llvm_build_dir, pids
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import STANDIN
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from waiting import file_poll, until

CLIENT = "visual_studio_code"
NAMES = {
    "a newline and a command": "top\nrm -rf ~",
    "a semicolon": "top; x",
    "a path": "../x",
    "a space": "top x",
    "a quote": "top'",
    "empty": "",
    "a name the file lacks": "nope",
}
PARTS = {
    "a closing brace": "xcu250}",
    "a Tcl command": "[exec touch /tmp/pwned]",
    "a brace and a command": "xcu250} [exec touch /tmp/pwned]",
    "a backslash": "xcu250\\",
    "a newline": "xcu250\nexec touch /tmp/pwned",
    "a space": "xcu 250",
    "a dollar": "$env(HOME)",
}
CLOCKS = {"too large for a float": "1e999", "negative": "-1", "not a number": "nan", "zero point zero one": "0.01"}
JOB_COMMANDS = ["alloDataflow.simulate", "alloDataflow.run", "alloDataflow.showMlir", "alloDataflow.synthesize"]


@pytest.fixture
def server_tmp(tmp_path):
    """The server's temporary directory, where its job directories go."""
    path = tmp_path / "server-tmp"
    path.mkdir()
    return path


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"],
        client_factory=make_client,
    ),
)
async def hostile_client(lsp_client: LanguageClient, server_tmp, tmp_path):
    lsp_client.editor = Editor(lsp_client, CLIENT)
    lsp_client.set_configuration(
        {"trusted": True, "alloBuild": "fixed", "llvmBuildDir": fake_llvm_build_dir(), "timeout": 20},
        section="alloDataflow",
    )
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities(CLIENT)))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(autouse=True)
def _server_environment(monkeypatch, server_tmp, tmp_path):
    """pytest-lsp starts the server with this process's environment: the stand-in Allo and
    Vitis, the temporary directory and the workspaces' storage the test looks into."""
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))
    monkeypatch.setenv("PATH", f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", str(server_tmp))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("LLVM_BUILD_DIR", raising=False)


def made(directory) -> list[str]:
    """What the server's jobs made in `directory` (job directories, kept projects)."""
    return sorted(name for name in os.listdir(directory) if name.startswith("allo-lsp-"))


async def _open(editor: Editor, tmp_path) -> tuple[object, str]:
    path = design(tmp_path, extra="\n\ndef test_top():\n    mod = df.build(top, target='simulator')\n")
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    return path, uri


async def _command(editor: Editor, command: str, *arguments):
    return await editor.client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=command, arguments=list(arguments))
    )


async def _shown(client, needle: str) -> str:
    """The window/showMessage that says `needle`."""

    def found():
        return next((m.message for m in client.messages if needle in m.message), None)

    seen = lambda: [m.message for m in client.messages]  # noqa: E731
    return await until(found, what=f"a message saying {needle!r}", wake=file_poll, seen=seen)


def _says_why(message: str, name: str) -> None:
    assert "\n" not in message, f"a message on several lines: {message!r}"
    if name.isidentifier():
        assert f"named '{name}'" in message, message
    else:
        assert "is not the name of a region or a function" in message and repr(name)[:40] in message, message


@pytest.mark.parametrize("command", JOB_COMMANDS)
async def test_a_job_command_refuses_a_name_that_is_not_the_documents(hostile_client, server_tmp, tmp_path, command):
    """The old server ran `run` of any name (the runner imported the design, then found no such
    function), and its messages carried the name's newline; every job kind now checks the name
    against the document's analysis first."""
    editor = hostile_client.editor
    path, uri = await _open(editor, tmp_path)
    for label, name in NAMES.items():
        answer = await _command(editor, command, uri, name)
        assert answer["status"] == "error" and answer["cause"] == "environment", (label, answer)
        _says_why(answer["message"], name)
        assert await _shown(hostile_client, answer["message"])
        assert pids(path) == [], f"{label}: a runner imported the design"
        assert made(server_tmp) == [], label


async def test_a_sweep_refuses_a_name_that_is_not_the_documents(hostile_client, server_tmp, tmp_path):
    """The old sweep made a point of each combination and ran each (locally: every point then
    failed; on a cluster, the name went into the batch script)."""
    editor = hostile_client.editor
    path, uri = await _open(editor, tmp_path)
    for label, name in NAMES.items():
        for rest in ([], [["M=4,8"]]):
            answer = await _command(editor, "alloDataflow.sweep", uri, name, *rest)
            assert answer["status"] == "error" and not answer.get("rows"), (label, answer)
            _says_why(answer["message"], name)
    assert pids(path) == [] and made(server_tmp) == []


async def test_a_sweep_refuses_a_hostile_part_or_clock(hostile_client, server_tmp, tmp_path):
    """The old sweep wrote `set_part {xcu250}}` into run.tcl and ran Vitis on it; a backslash
    crashed the point (re.PatternError)."""
    editor = hostile_client.editor
    path, uri = await _open(editor, tmp_path)
    values = [f"part={p}" for p in PARTS.values() if "," not in p] + [f"clock={c}" for c in CLOCKS.values()]
    for value in values:
        answer = await _command(editor, "alloDataflow.sweep", uri, "top", [value])
        messages = [answer["message"]] if not answer.get("rows") else [row["message"] for row in answer["rows"]]
        assert answer["status"] in ("error", "failed") and messages, (value, answer)
        assert all(("part" in m or "clock" in m) and "\n" not in m for m in messages), (value, messages)
    assert pids(path) == [] and made(server_tmp) == []


@pytest.mark.parametrize(
    ("key", "value"),
    [("part", part) for part in PARTS.values()] + [("clockNs", clock) for clock in (1e308 * 10, -1.0, 0.01, 5000)],
)
async def test_a_hostile_part_or_clock_setting_is_refused_with_a_message(hostile_client, key, value):
    """The old server took any string as the part (into run.tcl) and 1e999 (infinity) as the clock."""
    hostile_client.set_configuration(
        {"trusted": True, "alloBuild": "fixed", "vitis": {key: value}}, section="alloDataflow"
    )
    hostile_client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
    message = await _shown(hostile_client, f"alloDataflow.vitis.{key}")
    assert ("part" in message or "clock" in message) and "\n" not in message, message


# -- the command line ---------------------------------------------------------------------------


def _cli(*args: str, cwd) -> tuple[dict, int]:
    env = {**os.environ, "PYTHONPATH": str(STANDIN), "PATH": f"{STANDIN / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env["TMPDIR"] = str(cwd)
    env.pop("LLVM_BUILD_DIR", None)
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", *args, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
    )
    return json.loads(out.stdout), out.returncode


@pytest.mark.parametrize("command", ["run", "synth"])
def test_the_command_line_refuses_a_name_that_is_not_the_files(tmp_path, command):
    path = design(tmp_path)
    for label, name in NAMES.items():
        if not name:
            continue  # FILE:: is a usage error of its own
        result, rc = _cli(command, f"{path}::{name}", cwd=tmp_path)
        assert rc == 1 and (result["status"], result["cause"]) == ("error", "environment"), (label, result)
        assert "\n" not in result["message"] and (name.isidentifier() or "not the name of" in result["message"])
        assert pids(path) == [] and made(tmp_path) == [], label


def test_synth_refuses_a_hostile_part_or_clock(tmp_path):
    """The old `synth` wrote any --part into run.tcl and took --clock 1e999 as infinity."""
    path = design(tmp_path)
    options = [("--part", p) for p in PARTS.values()] + [("--clock", c) for c in CLOCKS.values()]
    for option, value in options:
        result, rc = _cli("synth", f"{path}::top", option, value, cwd=tmp_path)
        assert rc == 1 and (result["status"], result["cause"]) == ("error", "environment"), (value, result)
        assert option[2:] in result["message"] and "\n" not in result["message"], result["message"]
        assert pids(path) == [] and made(tmp_path) == [], value
