"""Jobs that fail in every way, run through the real server as a user runs them.

Shared by the CI test (`test_job_faults.py`: the faults no other test covers through the
server) and the full run (`bench/reliability/job_faults.py`: all of them, timed). Each fault is
a design (the producer/consumer example with the stand-in Allo, `tests/jobs/designs.py`), a
target (a region to simulate or a test function to run, whose body misbehaves) and what the
outcome must be. `run_fault` opens the design in a running server, clicks the target's lens,
and measures what the brief asks: the job reaches a terminal state within its timeout plus 2 s,
its progress ends, no process it started survives (by pid: the runner records its own at
import, and the test functions record their children's), its directory is gone, and the
server answers a hover right after.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as lsp

ROOT = Path(__file__).resolve().parents[2]
for _p in (ROOT / "tests", ROOT / "tests" / "jobs"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from designs import design, fake_llvm_build_dir  # noqa: E402
from lsp_session import alive  # noqa: E402

STANDIN = ROOT / "tests" / "standin"
GRACE_S = 2.0  # a job must end within its timeout plus this


def job_env(tmpdir: Path) -> dict[str, str]:
    """The server's environment for jobs: the stand-in Allo, its Vitis, a private TMPDIR (so
    that job directories left behind are visible)."""
    return {
        "PYTHONPATH": str(STANDIN),
        "PATH": f"{STANDIN / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "TMPDIR": str(tmpdir),
    }


def job_settings(timeout: float) -> dict:
    return {"debounceMs": 20, "llvmBuildDir": fake_llvm_build_dir(), "timeout": timeout}


# Test functions appended to the design: each misbehaves in one way, recording the pids of the
# processes it starts in `children.txt` beside the design.
_RECORD = (
    "    import os as _os\n"
    "    def _record(pid):\n"
    "        with open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'children.txt'), 'a') as f:\n"
    "            f.write(f'{pid}\\n')\n"
)

NOISE = (
    "\n\ndef test_noisy():\n"
    "    import sys\n"
    "    line = b'\\xff\\xfe\\xc3 not utf-8 \\xed\\xa0\\x80 ' + b'x' * 990 + b'\\n'\n"
    "    for _ in range(MEGABYTES * 1024 * 1024 // len(line)):\n"
    "        sys.stdout.buffer.write(line)\n"
    "    sys.stdout.flush()\n"
    "    raise ValueError('after the noise')\n"
)

CHILDREN = (
    "\n\ndef test_children():\n" + _RECORD + "    import subprocess, sys\n"
    "    sleeper = [sys.executable, '-c', 'import time; time.sleep(600)']\n"
    "    _record(subprocess.Popen(sleeper).pid)  # same process group\n"
    "    _record(subprocess.Popen(sleeper, start_new_session=True).pid)  # a session of its own\n"
    "    # holds the runner's stdout open after the runner is gone\n"
    "    _record(subprocess.Popen(sleeper, stdout=sys.__stdout__, start_new_session=True).pid)\n"
    "    if _os.fork() == 0:  # a daemon: double fork, new session, parent gone\n"
    "        _os.setsid()\n"
    "        if _os.fork() == 0:\n"
    "            _record(_os.getpid())\n"
    "            import time\n"
    "            time.sleep(600)\n"
    "        _os._exit(0)\n"
    "    import time\n"
    "    time.sleep(0.5)\n"
)

KILLED_MID_WRITE = (
    "\n\ndef test_killed_mid_write():\n"
    "    # The runner writes its result after this returns: half of it goes out, then SIGKILL.\n"
    "    import os, signal\n"
    "    write = os.write\n"
    "    def torn(fd, data):\n"
    "        if fd > 2:\n"
    "            write(fd, bytes(data)[:25])\n"
    "            os.kill(os.getpid(), signal.SIGKILL)\n"
    "        return write(fd, data)\n"
    "    os.write = torn\n"
)

TORN_RESULT = (
    "\n\ndef test_torn_result():\n"
    "    # A result file cut short at its final name (a writer that is not atomic), then SIGKILL.\n"
    "    import os, signal\n"
    "    with open(os.path.join(os.getcwd(), 'result.json'), 'w') as f:\n"
    '        f.write(\'{"status": "passed", "mess\')\n'
    "    os.kill(os.getpid(), signal.SIGKILL)\n"
)

# Forged results. The design finds every pipe it holds besides stdin/stdout/stderr (the result
# pipe among them) and writes a result saying "passed" into it, in the runner's format.
_FORGE = (
    "    import json as _json, os as _os, stat as _stat\n"
    "    def _forge():\n"
    "        line = _json.dumps({'nonce': '', 'result': {'status': 'passed', 'message': 'forged'}}) + '\\n'\n"
    "        for name in _os.listdir('/proc/self/fd'):\n"
    "            fd = int(name)\n"
    "            try:\n"
    "                if fd > 2 and _stat.S_ISFIFO(_os.fstat(fd).st_mode):\n"
    "                    _os.write(fd, line.encode())\n"
    "            except OSError:\n"
    "                pass\n"
    "        for request in ('request.json', _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'request.json')):\n"
    "            if _os.path.exists(request):  # the old protocol: the result file the request names\n"
    "                with open(_json.load(open(request))['result_path'], 'w') as f:\n"
    "                    _json.dump({'status': 'passed', 'message': 'forged'}, f)\n"
)

FOREIGN_RESULT = (
    "\n\ndef test_foreign_result():\n"
    "    # The design saves its own `result.json` in its working directory, and JSON that is not a\n"
    "    # job result into every pipe it holds, then crashes.\n"
    "    import json, os, signal, stat\n"
    "    with open('result.json', 'w') as f:\n"
    "        json.dump({'status': 'passed', 'accuracy': 0.98}, f)\n"
    "    for name in os.listdir('/proc/self/fd'):\n"
    "        try:\n"
    "            if int(name) > 2 and stat.S_ISFIFO(os.fstat(int(name)).st_mode):\n"
    '                os.write(int(name), b\'{"accuracy": 0.98, "outputs": "B.npy"}\\n\')\n'
    "        except OSError:\n"
    "            pass\n"
    "    os.kill(os.getpid(), signal.SIGSEGV)\n"
)

FORGED_THEN_EXIT_1 = "\n\ndef test_forged_then_exit_1():\n" + _FORGE + "    _forge()\n    _os._exit(1)\n"

FORGED_AT_EXIT = (
    "\n\ndef test_forged_at_exit():\n" + _FORGE + "    import atexit\n"
    "    atexit.register(_forge)\n"
    "    assert 1 == 2, 'the real outcome'\n"
)

FORGED_FROM_REQUEST = (
    "\n\ndef test_forged_from_request():\n" + _FORGE + "    _forge()\n    assert 1 == 2, 'the real outcome'\n"
)

# Children that leave the job's process group and its environment marker: a new session with a
# clean environment, and a double-forked daemon that execs with no environment at all.
ESCAPEES = (
    "\n\ndef test_escapees():\n" + _RECORD + "    import subprocess, sys\n"
    "    sleeper = [sys.executable, '-c', 'import time; time.sleep(600)']\n"
    "    _record(subprocess.Popen(sleeper, start_new_session=True, env={}).pid)\n"
    "    if _os.fork() == 0:\n"
    "        _os.setsid()\n"
    "        if _os.fork() == 0:\n"
    "            _record(_os.getpid())\n"
    "            _os.execve(sys.executable, sleeper, {})\n"
    "        _os._exit(0)\n"
    "    import time\n"
    "    time.sleep(0.5)\n"
)

HANG = (
    "\n\ndef test_hang():\n" + _RECORD + "    import subprocess, sys, time\n"
    "    _record(subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']).pid)\n"
    "    # and one in a session of its own, with a clean environment\n"
    "    _record(subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], start_new_session=True, env={}).pid)\n"
    "    time.sleep(600)\n"
)


@dataclass(frozen=True)
class Fault:
    name: str
    behaviour: str  # ALLO_STANDIN of the design
    target: str  # "top" (▶ Simulate) or a test function (▶ Run)
    status: str  # expected outcome
    cause: str | None
    extra: str = ""
    timeout: float = 20.0
    needle: str = ""  # in the message

    @property
    def lens(self) -> str:
        return "▶ Simulate" if self.target == "top" else "▶ Run"


FAULTS = {
    f.name: f
    for f in [
        Fault("segfault", "segfault", "top", "crashed", "crash", needle="SIGSEGV"),
        Fault("abort", "option_fast", "top", "error", "library_bug", needle="Option 'fast' already exists"),
        Fault("hang", "hang", "top", "timeout", "timeout", timeout=3.0, needle="OMP_NUM_THREADS=2"),
        Fault("hang_with_child", "ok", "test_hang", "timeout", "timeout", HANG, timeout=3.0),
        Fault(
            "output_100mb",
            "ok",
            "test_noisy",
            "failed",
            "user_error",
            NOISE.replace("MEGABYTES", "100"),
            needle="after the noise",
        ),
        Fault(
            "invalid_utf8",
            "ok",
            "test_noisy",
            "failed",
            "user_error",
            NOISE.replace("MEGABYTES", "1"),
            needle="after the noise",
        ),
        Fault("children_outlive", "ok", "test_children", "passed", None, CHILDREN),
        Fault(
            "killed_mid_write", "ok", "test_killed_mid_write", "crashed", "crash", KILLED_MID_WRITE, needle="SIGKILL"
        ),
        Fault("torn_result", "ok", "test_torn_result", "crashed", "crash", TORN_RESULT, needle="SIGKILL"),
        Fault("foreign_result", "ok", "test_foreign_result", "crashed", "crash", FOREIGN_RESULT, needle="SIGSEGV"),
        Fault(
            "forged_then_exit_1",
            "ok",
            "test_forged_then_exit_1",
            "error",
            "crash",
            FORGED_THEN_EXIT_1,
            needle="exited with status 1",
        ),
        Fault(
            "forged_at_exit",
            "ok",
            "test_forged_at_exit",
            "failed",
            "assertion",
            FORGED_AT_EXIT,
            needle="the real outcome",
        ),
        Fault(
            "forged_from_request",
            "ok",
            "test_forged_from_request",
            "failed",
            "assertion",
            FORGED_FROM_REQUEST,
            needle="the real outcome",
        ),
        Fault("escapees", "ok", "test_escapees", "passed", None, ESCAPEES),
    ]
}


@dataclass
class Measured:
    fault: str
    status: str = ""
    cause: str | None = None
    message: str = ""
    seconds: float = 0.0  # from the click to the command's answer
    limit_s: float = 0.0  # the job's timeout plus GRACE_S
    progress_ended: bool | None = None  # None: the client has no work-done progress
    survivors: list[int] = field(default_factory=list)  # pids still alive afterwards
    leftover_dirs: list[str] = field(default_factory=list)  # job directories not removed
    hover_s: float | None = None  # a hover right after
    rss_before_kib: int | None = None
    rss_after_kib: int | None = None
    log_chars: int = 0  # the biggest window/logMessage the job caused
    problems: list[str] = field(default_factory=list)


def pids_in(directory: Path) -> list[int]:
    out = []
    for name in ("pid.txt", "children.txt"):
        path = directory / name
        if path.exists():
            out += [int(p) for p in path.read_text().split()]
    return out


def job_dirs(tmpdir: Path) -> list[str]:
    return sorted(p.name for p in tmpdir.glob("allo-lsp-job-*"))


PROBE_WAIT_S = 10.0


async def dirs_after_jobs(tmpdir: Path) -> list[str]:
    """The job directories still there once the server's other jobs are done: the first job of a
    server starts the build probe beside it (jobs/build_probe.py: an MLIR job of its own, whose
    directory holds `project/probe_top.mlir` while it runs), which may end after the job asked for."""
    deadline = time.monotonic() + PROBE_WAIT_S
    while (left := job_dirs(tmpdir)) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return left


def open_fault(s, directory: Path, fault: Fault) -> tuple[Path, str]:
    directory.mkdir(parents=True, exist_ok=True)
    path = design(directory, fault.behaviour, fault.extra)
    uri = path.as_uri()
    s.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text())
        )
    )
    return path, uri


async def wait_dead(pids: list[int], within: float) -> list[int]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return []
        await asyncio.sleep(0.05)
    return [p for p in pids if alive(p)]


async def run_fault(s, directory: Path, tmpdir: Path, fault: Fault) -> Measured:
    """One fault through the server `s` (already configured for jobs with `fault.timeout`)."""
    from lsp_session import rss_kib

    m = Measured(fault.name, limit_s=fault.timeout + GRACE_S)
    path, uri = open_fault(s, directory, fault)
    await s.diagnostics(uri, 1)
    # The command a lens (or, for a test that builds nothing, `alloDataflow.run`) sends.
    command = lsp.Command(
        title=fault.lens,
        command="alloDataflow.simulate" if fault.target == "top" else "alloDataflow.run",
        arguments=[uri, fault.target],
    )
    tokens_before = set(s.client.progress_reports)
    logs_before = len(s.client.log_messages)
    m.rss_before_kib = rss_kib(s.pid)
    start = time.monotonic()
    result = await asyncio.wait_for(
        s.request(
            lsp.WORKSPACE_EXECUTE_COMMAND,
            lsp.ExecuteCommandParams(command=command.command, arguments=command.arguments),
        ),
        fault.timeout + 60,
    )
    m.seconds = round(time.monotonic() - start, 3)
    m.rss_after_kib = rss_kib(s.pid)
    m.status, m.cause, m.message = result["status"], result["cause"], result["message"]
    # The server answers right after.
    start = time.monotonic()
    await asyncio.wait_for(
        s.request(
            lsp.TEXT_DOCUMENT_HOVER,
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri), position=lsp.Position(0, 0)),
        ),
        5,
    )
    m.hover_s = round(time.monotonic() - start, 3)
    # Progress: begun and ended for this job (clients with work-done progress).
    new = [t for t in s.client.progress_reports if t not in tokens_before]
    if new:
        for _ in range(40):
            if all(s.client.progress_reports[t][-1].kind == "end" for t in new):
                break
            await asyncio.sleep(0.05)
        m.progress_ended = all(s.client.progress_reports[t][-1].kind == "end" for t in new)
    m.log_chars = max((len(x.message) for x in s.client.log_messages[logs_before:]), default=0)
    m.survivors = await wait_dead(pids_in(path.parent), 1.0)
    m.leftover_dirs = await dirs_after_jobs(tmpdir)
    if (m.status, m.cause) != (fault.status, fault.cause):
        m.problems.append(f"outcome {m.status}/{m.cause} ({m.message[:300]}), expected {fault.status}/{fault.cause}")
    if fault.needle and fault.needle not in m.message:
        m.problems.append(f"message without {fault.needle!r}: {m.message[:300]}")
    if m.seconds > m.limit_s:
        m.problems.append(f"took {m.seconds} s, over the timeout plus {GRACE_S} s ({m.limit_s} s)")
    if m.progress_ended is False:
        m.problems.append("the progress did not end")
    if m.survivors:
        m.problems.append(f"processes survived the job: {m.survivors}")
    if m.leftover_dirs:
        m.problems.append(f"job directories left behind: {m.leftover_dirs}")
    if m.hover_s > 2.0:
        m.problems.append(f"a hover right after took {m.hover_s} s")
    return m


def kill_all(pids: list[int]) -> None:
    """Clean up after a failed check, so that one test's survivors do not outlive the run."""
    import signal

    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


SHUTDOWNS = ("shutdown", "end_of_input", "sigterm", "sigkill")
PREFIX_OF_A_LIVE_SERVER = "allo-lsp-job-"  # + pid.start-time: this test process is alive
EXIT_WITHIN_S = 3.0 + GRACE_S  # cli._TEARDOWN_S, then the grace


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return int(stat[stat.rindex(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return None


async def wait_gone(pids: list[int], within: float) -> float | None:
    """Seconds until none of `pids` is alive, or None if some still are after `within`."""
    start = time.monotonic()
    return None if await wait_dead(pids, within) else round(time.monotonic() - start, 3)


@dataclass
class ShutdownMeasured:
    how: str
    exit_s: float | None = None  # from the request/close/signal to the server's exit
    died_s: float | None = None  # from then until every process of the job was gone
    shutdown_s: float | None = None  # the `shutdown` request's answer (it took 36 s with hung jobs)
    returncode: int | None = None
    survivors: list[int] = field(default_factory=list)
    leftover_dirs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


async def shutdown_mid_job(directory: Path, how: str) -> ShutdownMeasured:
    """A job that hangs (with a child of its own, and one in a session of its own with a clean
    environment) is running when the server is told to stop: `shutdown` then `exit` as an
    editor does, the end of its input (the editor died), SIGTERM (an editor killing a server
    that did not exit), or SIGKILL (nothing of the server runs any more). The server must exit,
    taking every process of the job with it (its watchdog too) and removing its directory; after
    SIGKILL, the next server removes the directory."""
    import lsp_session

    m = ShutdownMeasured(how)
    tmpdir = directory / "tmp"
    tmpdir.mkdir(parents=True, exist_ok=True)
    fault = FAULTS["hang_with_child"]
    async with lsp_session.session(job_settings(60), env=job_env(tmpdir), shutdown=False) as s:
        path, uri = open_fault(s, directory / "design", fault)
        await s.diagnostics(uri, 1)
        job = asyncio.ensure_future(
            s.request(
                lsp.WORKSPACE_EXECUTE_COMMAND,
                lsp.ExecuteCommandParams(command="alloDataflow.run", arguments=[uri, fault.target]),
            )
        )
        deadline = time.monotonic() + 30
        while len(pids_in(path.parent)) < 3 and time.monotonic() < deadline:  # the runner and its children
            await asyncio.sleep(0.05)
        pids = pids_in(path.parent)
        watchdog = parent_of(pids[0]) if pids else None
        if watchdog is not None and watchdog != s.pid:
            pids.append(watchdog)
        start = time.monotonic()
        if how == "shutdown":
            await asyncio.wait_for(s.client.shutdown_async(None), 10)
            m.shutdown_s = round(time.monotonic() - start, 3)
            s.client.exit(None)
        elif how == "end_of_input":
            s.process.stdin.close()
        elif how == "sigterm":
            s.process.terminate()
        elif how == "sigkill":
            s.process.kill()
        try:
            await asyncio.wait_for(s.process.wait(), EXIT_WITHIN_S + 5)
        except asyncio.TimeoutError:
            pass
        m.returncode = s.process.returncode
        m.exit_s = round(time.monotonic() - start, 3) if m.returncode is not None else None
        job.cancel()
        m.died_s = await wait_gone(pids, 2.0)
        m.survivors = [p for p in pids if alive(p)]
        m.leftover_dirs = job_dirs(tmpdir)
    if how == "sigkill":
        # A killed server cannot clean up: the next one removes what it left (and nothing else).
        other = tmpdir / f"{PREFIX_OF_A_LIVE_SERVER}{os.getpid()}.0-x"
        other.mkdir()
        async with lsp_session.session(job_settings(60), env=job_env(tmpdir)) as s:
            path, uri = open_fault(s, directory / "again", FAULTS["hang_with_child"])
            await s.diagnostics(uri, 1)
            await s.request(
                lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri))
            )
            deadline = time.monotonic() + 5
            while job_dirs(tmpdir) != [other.name] and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            m.leftover_dirs = [d for d in job_dirs(tmpdir) if d != other.name]
            if not other.exists():
                m.problems.append("the next server removed the directory of a live one")
    if len(pids) < 4:
        m.problems.append(f"the job did not start its processes in time: {pids}")
    if m.shutdown_s is not None and m.shutdown_s > 1.0:
        m.problems.append(f"`shutdown` took {m.shutdown_s} s to answer with a hung job")
    if m.exit_s is None or m.exit_s > EXIT_WITHIN_S:
        m.problems.append(f"the server took {m.exit_s} s to exit (limit {EXIT_WITHIN_S} s)")
    if m.survivors:
        m.problems.append(f"processes of the job survived the server: {m.survivors}")
    elif m.died_s is None or m.died_s > 1.0:
        m.problems.append(f"the job's processes took {m.died_s} s to die after the server")
    if m.leftover_dirs:
        inside = sorted(str(p.relative_to(tmpdir)) for p in tmpdir.rglob("*") if p.parent != tmpdir)
        m.problems.append(
            f"job directories left behind: {m.leftover_dirs}, holding {inside[:20]}; the server exited in {m.exit_s} s"
        )
    kill_all(m.survivors)
    return m
