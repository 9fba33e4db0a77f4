"""Untrusted code: nothing of a design runs unless the user runs it, in a trusted workspace, and
what does run is launched without a shell, in a private directory that is removed afterwards.

Through the real server (`lsp_session.py`), with the stand-in Allo of the job tests.
"""

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import faults
import lsp_session
import pytest
from allo_lsp.jobs.isolation import RUNNER_PREFIX
from lsprotocol import types as lsp
from paths import ROOT
from waiting import file_poll, reconfigured, until, until_notified

SERVER_PACKAGE = ROOT / "server" / "allo_lsp"

# Every place where Python runs code at import, each leaving its own marker file.
EXECUTES_AT_IMPORT = """
import os as _os
_MARKS = {marks!r}


def _touch(name):
    open(_os.path.join(_MARKS, name), "w").close()
    return 16


_touch("module")
import allo
from allo.ir.types import int32
import allo.dataflow as df


def deco(f):
    _touch("decorator")
    return f


@deco
def helper(x=_touch("default-argument")):
    pass


class Holder:
    _touch("class-body")
    field: _touch("annotation") = 1


N = _touch("constant") or 16
M = int(__import__("os").system("touch " + _MARKS + "/system") or 16)


@df.region()
def top(A: int32[N], B: int32[N]):
    @df.kernel(mapping=[1], args=[A, B])
    def copy(local_A: int32[N], local_B: int32[N]):
        for i in range(N):
            local_B[i] = local_A[i]


def test_top():
    _touch("test")
    mod = df.build(top, target="simulator")


if __name__ == "__main__":
    _touch("main")
"""


def command(name: str, uri: str, target: str) -> lsp.ExecuteCommandParams:
    return lsp.ExecuteCommandParams(command=f"alloDataflow.{name}", arguments=[uri, target])


async def open_file(s, path: Path) -> str:
    uri = path.as_uri()
    s.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text())
        )
    )
    await s.diagnostics(uri, 1)
    return uri


async def configure(s, settings: dict, analysed_again: bool = False) -> None:
    """New settings, once the server has asked for them; with `analysed_again`, also once the
    analysis they cause (of the open documents) is published, under whatever URI."""
    published = sum(len(p) for p in s.published.values())
    await reconfigured(s.client, "alloDataflow", lambda: s.configure(settings))
    if analysed_again:
        await until_notified(
            s.arrived,
            lambda: sum(len(p) for p in s.published.values()) > published,
            what="the analysis the new settings cause",
            seen=lambda: list(s.published),
        )


async def test_nothing_executes_on_open_hover_lenses_actions_or_check(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    path = tmp_path / "design.py"
    path.write_text(EXECUTES_AT_IMPORT.format(marks=str(marks)))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    async with lsp_session.session(faults.job_settings(20), env=faults.job_env(tmpdir)) as s:
        uri = await open_file(s, path)
        ident = lsp.TextDocumentIdentifier(uri)
        lines = path.read_text().split("\n")
        for line, text in enumerate(lines):
            for col in range(0, len(text) + 1, 4):
                pos = lsp.Position(line, col)
                await s.request(lsp.TEXT_DOCUMENT_HOVER, lsp.HoverParams(text_document=ident, position=pos))
                await s.request(lsp.TEXT_DOCUMENT_DEFINITION, lsp.DefinitionParams(text_document=ident, position=pos))
            rng = lsp.Range(lsp.Position(line, 0), lsp.Position(line, len(text)))
            await s.request(
                lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionParams(text_document=ident, range=rng, context=lsp.CodeActionContext(diagnostics=[])),
            )
        await s.request(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensParams(text_document=ident))
        await s.request(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, lsp.DocumentSymbolParams(text_document=ident))
        whole = lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines), 0))
        await s.request(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintParams(text_document=ident, range=whole))
        # An edit and a settings change: analysed again, still nothing runs.
        s.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), text="# edited\n"
                    )
                ],
            )
        )
        await s.diagnostics(uri, 2)
        await configure(s, {**faults.job_settings(20), "alloBuild": "legacy"}, analysed_again=True)
        for fmt in ("text", "json", "sarif", "github"):
            subprocess.run(
                [sys.executable, "-m", "allo_lsp", "check", str(path), "--format", fmt], capture_output=True, timeout=60
            )
        assert sorted(os.listdir(marks)) == []
        # The markers do work: running the test (the user's choice) imports the module.
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_top"))
        assert result["status"] == "passed", result["message"]
        ran = set(os.listdir(marks))
        assert {"module", "decorator", "default-argument", "class-body", "constant", "system", "test"} <= ran
        assert "main" not in ran  # imported as a module, not run as a script


async def test_an_untrusted_workspace_runs_nothing_until_trusted(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    path = tmp_path / "design.py"
    path.write_text(EXECUTES_AT_IMPORT.format(marks=str(marks)))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    untrusted = {**faults.job_settings(20), "trusted": False}
    async with lsp_session.session(untrusted, env=faults.job_env(tmpdir)) as s:
        uri = await open_file(s, path)
        for name, target in [("simulate", "top"), ("run", "test_top"), ("showMlir", "top"), ("synthesize", "top")]:
            result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command(name, uri, target))
            assert result["status"] == "error" and "not trusted" in result["message"], (name, result)
        assert os.listdir(marks) == [] and os.listdir(tmpdir) == []
        assert any("not trusted" in m.message for m in s.client.messages)
        # Trusting the workspace enables the jobs without a restart.
        await configure(s, {**untrusted, "trusted": True})
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_top"))
        assert result["status"] == "passed" and "test" in os.listdir(marks)


async def test_no_job_runs_before_the_editor_has_said_whether_it_trusts_the_workspace(tmp_path):
    """Settings arrive by `workspace/configuration` after `initialized`; until then `trusted` has
    its default (true), so a click that came first ran the job in an untrusted workspace."""
    marks = tmp_path / "marks"
    marks.mkdir()
    path = tmp_path / "design.py"
    path.write_text(EXECUTES_AT_IMPORT.format(marks=str(marks)))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    untrusted = {**faults.job_settings(20), "trusted": False}
    async with lsp_session.session(untrusted, env=faults.job_env(tmpdir), configuration_delay=1.5) as s:
        uri = path.as_uri()
        s.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text())
            )
        )
        await s.diagnostics(uri, 1)
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_top"))
        assert result["status"] == "error" and "not trusted" in result["message"], result
        assert os.listdir(marks) == []


# -- no shell ----------------------------------------------------------------------------------

RECORDER = '''#!{python}
"""Stands in for an interpreter or a launcher: records how it was started, then execs the real
thing with the same arguments."""
import json, os, sys
record = {{"argv": sys.argv, "ppid": os.getppid()}}
try:
    record["parent"] = os.readlink(f"/proc/{{os.getppid()}}/exe")
    record["parent_cmdline"] = open(f"/proc/{{os.getppid()}}/cmdline").read().replace("\\0", " ")
    stat = open(f"/proc/{{os.getppid()}}/stat").read()
    record["grandparent"] = int(stat[stat.rindex(")") + 2:].split()[1])
except OSError:
    pass
with open({log!r}, "a") as f:
    f.write(json.dumps(record) + "\\n")
if {launcher!r}:
    os.execvp(sys.argv[1], sys.argv[1:])
os.execv(sys.executable, [sys.executable] + sys.argv[1:])
'''

# What a shell would split, expand or run (`cd` alone goes to $HOME, where `pwned-*` would appear).
AWKWARD_NAMES = [
    "with space.py",
    "quote'and\"double.py",
    "-leading-dash.py",
    "new\nline.py",
    "tab\there.py",
    "$(cd;touch pwned-1).py",
    "`cd;touch pwned-2`.py",
    "x;cd;touch pwned-3;#.py",
    "star*?[a]{b,c}.py",
    "--help.py",
]
PASSES = "\n\ndef test_here():\n    assert __file__.endswith({name!r})\n"


def recorder(tmp_path: Path, name: str, launcher: bool = False) -> tuple[Path, Path]:
    log = tmp_path / f"{name}.jsonl"
    script = tmp_path / name
    script.write_text(RECORDER.format(python=sys.executable, log=str(log), launcher=launcher))
    script.chmod(0o755)
    return script, log


def records(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_no_shell_launches_a_job_and_awkward_file_names_work(tmp_path):
    """The interpreter setting points at a recorder: each job starts as an argument vector whose
    parent is the server itself (no shell in between), and designs whose file names a shell
    would split, expand or run work (nothing named `pwned` appears)."""
    home = tmp_path / "home"
    home.mkdir()
    interpreter, log = recorder(tmp_path, "python-recorder")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**faults.job_env(tmpdir), "HOME": str(home)}
    async with lsp_session.session({**faults.job_settings(20), "python": str(interpreter)}, env=env) as s:
        for i, name in enumerate(AWKWARD_NAMES):
            directory = tmp_path / f"d{i}"
            directory.mkdir()
            path = faults.design(directory, extra=PASSES.format(name=name), name=name)
            uri = await open_file(s, path)
            result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_here"))
            assert result["status"] == "passed", (name, result["message"])
        starts = records(log)
        assert len(starts) >= len(AWKWARD_NAMES)
        for record in starts:
            argv = record["argv"]
            # Isolated (-I: no working directory on sys.path), the bootstrap, the runner's
            # directory (the server's), its pipes: no file names, no request on the command line.
            assert argv[0] == str(interpreter) and argv[1:5] == ["-I", "-B", "-u", "-c"], argv
            assert Path(argv[6]).name.startswith(RUNNER_PREFIX), argv
            assert argv[7:9] == ["--result-fd", argv[8]] and argv[9] == "--watchdog-fd", argv
            assert argv[11:] in ([], ["--warm"]), argv
            assert record["ppid"] == s.pid, record  # started by the server, not by a shell
    assert not list(home.rglob("pwned*")) and not list(tmp_path.rglob("pwned*"))


async def test_no_shell_runs_the_synthesis_launcher_prefix(tmp_path):
    """`vitis.launcherPrefix` is split into words, never given to a shell: `;` stays an argument."""
    launcher, log = recorder(tmp_path, "launcher-recorder", launcher=True)
    marks = tmp_path / "marks"
    marks.mkdir()
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    settings = {**faults.job_settings(20), "vitis": {"launcherPrefix": f"{launcher} --partition 'fpga nodes'"}}
    async with lsp_session.session(settings, env=faults.job_env(tmpdir)) as s:
        path = faults.design(tmp_path)
        uri = await open_file(s, path)
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("synthesize", uri, "top"))
        (record,) = records(log)
        assert record["argv"] == [str(launcher), "--partition", "fpga nodes", "vitis_hls", "-f", "run.tcl"]
        # Started by its watchdog (our runner/watchdog.py, which the server started), no shell.
        assert record["grandparent"] == s.pid and "run_command" in record["parent_cmdline"], record
        # A prefix with shell syntax: the words reach the launcher as they are.
        await configure(s, {**settings, "vitis": {"launcherPrefix": f"{launcher} ; touch {marks}/pwned"}})
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("synthesize", uri, "top"))
        assert result["status"] != "passed"
        assert records(log)[-1]["argv"][:4] == [str(launcher), ";", "touch", f"{marks}/pwned"]
        assert os.listdir(marks) == []


async def test_a_file_whose_uri_is_percent_encoded_is_analysed_and_runs(tmp_path):
    """`file:///…/my%20designs/top.py` (a space, or `c%3A` on Windows): pygls keys documents by
    the unquoted URI, so the server dropped every analysis as superseded and published none
    (except, after a settings change, under the unquoted URI, which the client cannot match)."""
    directory = tmp_path / "my designs #1"
    directory.mkdir()
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    async with lsp_session.session(faults.job_settings(20), env=faults.job_env(tmpdir)) as s:
        path = faults.design(directory, extra=PASSES.format(name="top.py"), name="top.py")
        uri = await open_file(s, path)
        assert "%20" in uri and "%23" in uri
        s.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), text="#\n"
                    )
                ],
            )
        )
        await s.diagnostics(uri, 2)
        line = next(i for i, l in enumerate(path.read_text().split("\n")) if l.startswith("def top(")) + 1
        hover = await s.request(
            lsp.TEXT_DOCUMENT_HOVER,
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(line, 5)),
        )
        assert hover is not None and "region `top`" in hover.contents.value
        await configure(s, {**faults.job_settings(20), "alloBuild": "fixed"}, analysed_again=True)
        assert set(s.published) == {uri}  # never under another spelling of it
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_here"))
        assert result["status"] == "passed", result["message"]


def test_no_shell_in_the_code():
    """Nothing in the package starts a process through a shell or evaluates text as code outside
    the runner (which runs the design by design)."""
    shell_calls = {
        ("os", "system"),
        ("os", "popen"),
        ("subprocess", "getoutput"),
        ("subprocess", "getstatusoutput"),
        ("asyncio", "create_subprocess_shell"),
        ("pty", "spawn"),
    }
    found = []
    for path in sorted(SERVER_PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        in_runner = "runner" in path.relative_to(SERVER_PACKAGE).parts
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "shell":
                found.append(f"{path}:{node.value.lineno}: shell=")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in shell_calls
            ):
                found.append(f"{path}:{node.lineno}: {node.value.id}.{node.attr}")
            if (
                not in_runner
                and isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("eval", "exec", "compile", "__import__")
            ):
                found.append(f"{path}:{node.lineno}: {node.func.id}()")
    assert found == []


# -- job directories ---------------------------------------------------------------------------

WHERE = (
    "\n\ndef test_where():\n"
    "    import os, stat\n"
    "    here = os.path.dirname(os.path.abspath(__file__))\n"
    "    mode = lambda p: format(stat.S_IMODE(os.stat(p).st_mode), 'o')\n"
    "    with open(os.path.join(here, 'where.txt'), 'w') as f:\n"
    "        f.write(f'{os.getcwd()} {mode(os.getcwd())} {mode(os.path.join(os.getcwd(), \"project\"))}')\n"
)
FAILS = "\n\ndef test_fails():\n    assert 1 == 2, 'no'\n"


async def test_job_directories_are_private_and_removed_whatever_the_outcome(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    async with lsp_session.session(faults.job_settings(20), env=faults.job_env(tmpdir)) as s:
        (tmp_path / "ok").mkdir()
        path = faults.design(tmp_path / "ok", extra=WHERE + FAILS)
        uri = await open_file(s, path)
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_where"))
        assert result["status"] == "passed", result["message"]
        cwd, mode, project_mode = (path.parent / "where.txt").read_text().split()
        assert Path(cwd).parent == tmpdir and mode == "700" and project_mode in ("700", "755")
        assert not Path(cwd).exists()
        # Failed, crashed, timed out, cancelled, MLIR: nothing is left either.
        await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", uri, "test_fails"))
        await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("showMlir", uri, "top"))
        for behaviour in ("segfault", "hang"):
            (tmp_path / behaviour).mkdir()
            other = await open_file(s, faults.design(tmp_path / behaviour, behaviour))
            await configure(s, faults.job_settings(2))
            await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("simulate", other, "top"))
        left = [p.name for p in tmpdir.iterdir() if p.name.startswith("allo-lsp-")]
        assert len(left) == 1 and left[0].startswith(RUNNER_PREFIX), left  # the server's, until it ends
    assert [p.name for p in tmpdir.iterdir() if p.name.startswith("allo-lsp-")] == []


async def test_a_failed_synthesis_leaves_no_directory(tmp_path):
    """Synthesis keeps its project for the report view; one that failed has nothing to show."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**faults.job_env(tmpdir), "VITIS_STANDIN": "license"}
    async with lsp_session.session(faults.job_settings(20), env=env) as s:
        uri = await open_file(s, faults.design(tmp_path))
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("synthesize", uri, "top"))
        assert result["status"] == "failed", result
        (tmp_path / "build_error").mkdir()
        broken = await open_file(s, faults.design(tmp_path / "build_error", "build_error"))
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("synthesize", broken, "top"))
        assert result["status"] == "error", result
        left = [p.name for p in tmpdir.iterdir() if p.name.startswith("allo-lsp-")]
        assert len(left) == 1 and left[0].startswith(RUNNER_PREFIX), left  # the server's, until it ends
    assert [p.name for p in tmpdir.iterdir() if p.name.startswith("allo-lsp-")] == []


# -- interpreters that are not there -----------------------------------------------------------


@pytest.mark.parametrize(
    "kind", ["missing", "not_on_path", "directory", "not_executable", "not_python", "bad_format", "bare_venv"]
)
async def test_a_python_setting_that_cannot_run_jobs_says_so(tmp_path, kind):
    text_file = tmp_path / "python3"
    if kind == "not_executable":
        text_file.write_text("#!/bin/sh\n")
        text_file.chmod(0o644)
    elif kind == "not_python":
        text_file.write_text("#!/bin/sh\necho this is not python\nexit 3\n")
        text_file.chmod(0o755)
    elif kind == "bad_format":
        text_file.write_bytes(b"\x7fELF garbage")
        text_file.chmod(0o755)
    elif kind == "bare_venv":  # a Python with neither Allo nor numpy: not a traceback of our runner's
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    python, expected = {
        "missing": (str(tmp_path / "no" / "python3"), "does not exist"),
        "not_on_path": ("python-allo-that-is-nowhere", "does not exist"),
        "directory": (str(tmp_path), "is not a file"),
        "not_executable": (str(text_file), "is not executable"),
        "not_python": (str(text_file), "did not start the allo-lsp runner"),
        "bad_format": (str(text_file), "cannot start"),
        "bare_venv": (
            str(tmp_path / "venv" / "bin" / "python"),
            "imports 'numpy', which is not installed in this Python",
        ),
    }[kind]
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    async with lsp_session.session({**faults.job_settings(20), "python": python}, env=faults.job_env(tmpdir)) as s:
        asked = []  # an environment's failure asks with its fixes (issue 26, item 21)
        s.client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)(lambda params: asked.append(params))
        (tmp_path / "d").mkdir()
        uri = await open_file(s, faults.design(tmp_path / "d"))
        result = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("simulate", uri, "top"))
        assert (result["status"], result["cause"]) == ("error", "environment"), result
        assert expected in result["message"] and "alloDataflow.python" in result["message"], result["message"]
        await until(lambda: asked, what="the message asking with its fixes", wake=file_poll)
        assert expected in asked[0].message and [a.title for a in asked[0].actions] == [
            "Open Settings",
            "Select Interpreter",
        ]
        hover = await s.request(
            lsp.TEXT_DOCUMENT_HOVER,
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(0, 0)),
        )
        assert hover is None or hover.contents


# -- one job against another -------------------------------------------------------------------

VICTIM = """

def test_victim():
    import os, time
    here = os.path.dirname(os.path.abspath(__file__))
    deadline = time.monotonic() + 30
    while not os.path.exists(os.path.join(here, 'attacked')) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert False, 'the victim fails'
"""

ATTACKER = """

def test_attacker():
    # Another job of the same user: find the other jobs' processes by their environment marker,
    # then, while the victim finishes, forge its result every way the old protocol and the new
    # one might allow, again and again (the last write before the server reads wins a file).
    import json, os, stat, time
    mine = os.environ['ALLO_LSP_JOB']
    forged = (json.dumps({{'nonce': '', 'result': {{'status': 'passed', 'message': 'forged'}}}}) + '\\n').encode()

    def forge_all():
        for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
            try:
                env = open(f'/proc/{{pid}}/environ', 'rb').read().split(b'\\0')
            except OSError:
                continue
            if not any(e.startswith(b'ALLO_LSP_JOB=') for e in env) or f'ALLO_LSP_JOB={{mine}}'.encode() in env:
                continue
            try:  # the old protocol: the victim's request file names its result file
                request = json.load(open(f'/proc/{{pid}}/cwd/request.json'))
                with open(request['result_path'], 'w') as f:
                    json.dump({{'status': 'passed', 'message': 'forged'}}, f)
            except (OSError, ValueError, KeyError):
                pass
            try:
                fds = os.listdir(f'/proc/{{pid}}/fd')
            except OSError:
                continue
            for fd in fds:
                path = f'/proc/{{pid}}/fd/{{fd}}'
                try:
                    if stat.S_ISFIFO(os.stat(path).st_mode):
                        out = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                        os.write(out, forged)
                        os.close(out)
                except OSError:
                    pass

    forge_all()
    open({victim_dir!r} + '/attacked', 'w').close()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        forge_all()
        time.sleep(0.005)
"""


async def test_a_job_cannot_forge_another_jobs_result(tmp_path):
    """A concurrent job read another job's request (with its unsaved text) and replaced its
    result: the victim showed "passed". Now there is no request file, and what another job
    writes into the victim's pipes lacks the victim's nonce: the victim's own outcome stands."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    (tmp_path / "victim").mkdir()
    (tmp_path / "attacker").mkdir()
    async with lsp_session.session(faults.job_settings(40), env=faults.job_env(tmpdir)) as s:
        victim_path = faults.design(tmp_path / "victim", extra=VICTIM)
        attacker_path = faults.design(tmp_path / "attacker", extra=ATTACKER.format(victim_dir=str(tmp_path / "victim")))
        victim, attacker = await open_file(s, victim_path), await open_file(s, attacker_path)
        victim_job = asyncio.ensure_future(
            s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", victim, "test_victim"))
        )
        await until(
            lambda: (tmp_path / "victim" / "pid.txt").exists() or victim_job.done(),
            what="the victim's runner up (its pid.txt)",
            wake=file_poll,
            seen=lambda: victim_job,
        )
        assert not victim_job.done(), f"the victim's job ended before the attack: {victim_job.result()}"
        attack = await s.request(lsp.WORKSPACE_EXECUTE_COMMAND, command("run", attacker, "test_attacker"))
        assert attack["status"] == "passed", attack["message"]
        assert (tmp_path / "victim" / "attacked").exists()
        result = await asyncio.wait_for(victim_job, 40)
        assert (result["status"], result["cause"]) == ("failed", "assertion"), result
        assert "the victim fails" in result["message"]


# -- the server as the VS Code extension starts it ----------------------------------------------

PLANTED_PACKAGE = "open({marks!r} + '/{name}', 'w').close()\nraise SystemExit('planted {name} ran')\n"


def client_server_argv(module: str) -> list[str]:
    """The server's arguments exactly as client/src/common/isolation.ts writes them."""
    ts = (ROOT / "client" / "src" / "common" / "isolation.ts").read_text()
    isolated = re.findall(r'"([^"]*)"', re.search(r"ISOLATED = \[(.*?)\]", ts).group(1))
    body = re.search(r"function serverArgs\(module: string\): string\[\] \{\s*return \[(.*?)\];", ts, re.S).group(1)
    argv = []
    for part in (p.strip() for p in body.split(",")):
        argv += isolated if part == "...ISOLATED" else [module] if part == "module" else [part.strip('"')]
    return argv


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_packages_in_the_workspace_do_not_run_when_the_extension_starts_the_server(tmp_path):
    """The extension starts the server with the workspace as its working directory: without
    `-I`, an `allo_lsp/` or `pygls/` package there ran at start, trusted or not. The server
    still imports from the environment it is installed in (a venv here)."""
    workspace, marks = tmp_path / "workspace", tmp_path / "marks"
    workspace.mkdir()
    marks.mkdir()
    for name in ("allo_lsp", "pygls", "lsprotocol", "libcst", "cattrs", "attrs"):
        (workspace / name).mkdir()
        (workspace / name / "__init__.py").write_text(PLANTED_PACKAGE.format(marks=str(marks), name=name))
    argv = client_server_argv("allo_lsp")
    assert "-I" in argv and argv[-3:] == ["-m", "allo_lsp", "serve"]
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, *argv],
        cwd=workspace,
        input=b"".join(map(frame, messages)),
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert os.listdir(marks) == [], out.stderr.decode()[-2000:]
    assert b'"capabilities"' in out.stdout and b'"id": 2' in out.stdout.replace(b'"id":2', b'"id": 2'), (
        out.stderr.decode()[-2000:]
    )
