"""What a job cannot be made to do by others, and what it cannot make the server believe: with
real processes (the job manager and the stand-in Allo, as the server runs them)."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from allo_lsp.jobs.isolation import PREFIX, RUNNER_PREFIX, remove_orphaned_dirs, remove_tree, runner_root, start_time
from allo_lsp.jobs.manager import JobManager
from allo_lsp.protocol.messages import DETAIL_LIMIT, MESSAGE_LIMIT, RUN
from allo_lsp.runner.watchdog import descendants
from designs import alive, design, fake_llvm_build_dir, pids, until_phase
from paths import EXAMPLES, STANDIN
from test_manager import spec_for
from waiting import file_poll, until

PLANTED = "open({marks!r} + '/planted', 'w').write('ran in ' + __import__('os').getcwd())\n"


async def test_a_module_planted_in_the_temporary_directory_does_not_run(tmp_path, monkeypatch):
    """Any local user can leave `numpy.py` in /tmp. The pre-started runner used to wait there
    (its working directory on sys.path) while it imported numpy: the planted module ran, with
    the server's environment, 3 s after the user's first job."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    marks = tmp_path / "marks"
    marks.mkdir()
    (shared / "numpy.py").write_text(PLANTED.format(marks=str(marks)))
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    path = design(tmp_path)
    manager = JobManager(prestart=True)
    first = await manager.run(spec_for(path, llvm=fake_llvm_build_dir()))
    assert await manager.prestarting() == 1
    second = await manager.run(spec_for(path, llvm=fake_llvm_build_dir()))  # in the pre-started runner
    await manager.close()
    assert (first.status, second.status) == ("passed", "passed"), (first.message, second.message)
    assert os.listdir(marks) == []


def _runner_processes() -> list[int]:
    """Pre-started runners of this process (their watchdogs), by their command line."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if b"--warm" in argv and int(stat[stat.rindex(b")") + 2 :].split()[1]) == os.getpid():
            found.append(int(entry))
    return found


async def test_concurrent_jobs_leave_one_prestarted_runner(tmp_path):
    """Two jobs ending together (cancelled at once) each pre-started a runner: all but one
    stayed idle, unknown to the manager, and outlived it."""
    llvm = fake_llvm_build_dir()
    paths = [design(tmp_path, "hang", name=f"d{i}.py") for i in range(2)]
    manager = JobManager(max_concurrent=2, prestart=True)
    seen = []
    for _ in range(2):
        phases = [[], []]
        jobs = [
            asyncio.ensure_future(manager.run(spec_for(p, llvm=llvm), phases[i].append)) for i, p in enumerate(paths)
        ]
        await until_phase("simulating", phases, jobs)
        for key in manager.running():
            manager.cancel(key)
        assert [r.status for r in await asyncio.wait_for(asyncio.gather(*jobs), 30)] == ["cancelled"] * 2
        assert await asyncio.wait_for(manager.prestarting(), 60) == 1
        seen += _runner_processes()
        assert len(_runner_processes()) == 1, _runner_processes()
    await manager.close()
    deadline = time.monotonic() + 3
    while any(alive(p) for p in seen) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not any(alive(p) for p in seen)


async def test_the_runners_copy_holds_the_runner_alone_and_is_made_again_when_removed(tmp_path):
    """A job imports our runner from a read-only copy of `runner/` and `protocol/` (nothing else
    of the server's environment); a cleaner of old temporary files may remove it under a server
    that lives for weeks: the next job makes it again (the runner pre-started from the old one is
    let go)."""
    path = design(tmp_path)
    manager = JobManager(prestart=True)
    first = await manager.run(spec_for(path, llvm=fake_llvm_build_dir()))
    assert await manager.prestarting() == 1
    old = runner_root()
    assert sorted(os.listdir(old)) == ["allo_lsp"]
    assert sorted(os.listdir(os.path.join(old, "allo_lsp"))) == ["__init__.py", "__pycache__", "protocol", "runner"]
    assert {oct(os.stat(os.path.join(old, p)).st_mode & 0o777) for p in ("allo_lsp", "allo_lsp/runner/job.py")} == {
        "0o500",
        "0o400",
    }
    (watchdog,) = [runner.process.pid for runner in manager._warm.values()]
    prestarted = await until(lambda: descendants(watchdog), what="the pre-started runner", wake=file_poll)
    remove_tree(old)
    second = await manager.run(spec_for(path, llvm=fake_llvm_build_dir()))
    await manager.close()
    assert (first.status, second.status) == ("passed", "passed"), (first.message, second.message)
    assert runner_root() != old and not os.path.exists(old)
    assert pids(path)[-1] not in prestarted  # a runner of the new copy ran it


def test_directories_of_servers_that_are_gone_are_removed(tmp_path):
    """Named after the server (pid and start time): a dead server's, or one whose pid now
    belongs to another process (another start time), go; a live server's and anything not
    named so stay."""
    me = os.getpid()
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    names = {
        "dead": f"{PREFIX}{dead}.1-abc",
        "reused": f"{PREFIX}{me}.{(start_time(me) or 0) + 1}-abc",
        "live": f"{PREFIX}{me}.{start_time(me)}-abc",
        "kept": f"{PREFIX}kept-abc",
        "other": "allo-lsp-fake-llvm-abc",
        "dead runner": f"{RUNNER_PREFIX}{dead}.1-abc",  # its copy of the runner, read-only
        "live runner": f"{RUNNER_PREFIX}{me}.{start_time(me)}-abc",
    }
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "unsaved.py").write_text("x = 1\n")
    (tmp_path / f"{PREFIX}{dead}.1-file").write_text("not a directory")
    (tmp_path / names["dead runner"] / "unsaved.py").chmod(0o400)
    (tmp_path / names["dead runner"]).chmod(0o500)
    removed = remove_orphaned_dirs(str(tmp_path))
    assert sorted(os.path.basename(p) for p in removed) == sorted(
        [names["dead"], names["reused"], names["dead runner"]]
    )
    assert sorted(os.listdir(tmp_path)) == sorted(
        [names["live"], names["kept"], names["other"], names["live runner"], f"{PREFIX}{dead}.1-file"]
    )


# -- causes from what the runner knows, not from what the design printed --------------------

PRINTS_THEN_RAISES = (
    "\n\ndef test_prints_llvm():\n"
    "    print(\"LLVM ERROR: Option 'fast' already exists!\")\n"
    "    print('Failure while creating the ExecutionEngine')\n"
    "    raise ValueError('mine')\n"
    "\n\ndef test_prints_glibc():\n"
    '    print("/lib/libc.so.6: version `GLIBC_2.34\' not found (required by x.so)")\n'
    "    raise RuntimeError('mine')\n"
    "\n\ndef test_prints_no_allo():\n"
    "    print(\"ModuleNotFoundError: No module named 'allo'\")\n"
    "    raise ValueError('mine')\n"
    "\n\ndef test_missing_user_module():\n"
    "    import allo_helpers_of_mine\n"
    "\n\ndef test_exit_0():\n"
    "    import sys\n"
    "    sys.exit(0)\n"
    "\n\ndef test_exit_1():\n"
    "    import sys\n"
    "    print('Error: something I print')\n"
    "    sys.exit(1)\n"
)


async def test_what_a_design_prints_does_not_decide_the_cause(tmp_path):
    path = design(tmp_path, extra=PRINTS_THEN_RAISES)
    llvm = fake_llvm_build_dir()
    manager = JobManager(max_concurrent=3)
    names = [
        "test_prints_llvm",
        "test_prints_glibc",
        "test_prints_no_allo",
        "test_missing_user_module",
        "test_exit_0",
        "test_exit_1",
    ]
    results = dict(zip(names, await asyncio.gather(*(manager.run(spec_for(path, n, RUN, llvm=llvm)) for n in names))))
    for name in ("test_prints_llvm", "test_prints_glibc", "test_prints_no_allo"):
        assert (results[name].status, results[name].cause) == ("failed", "user_error"), (name, results[name].message)
        assert "mine" in results[name].message
    missing = results["test_missing_user_module"]
    assert (missing.status, missing.cause) == ("failed", "user_error")
    assert "allo_helpers_of_mine" in missing.message and missing.line is not None
    for name in ("test_exit_0", "test_exit_1"):  # the design's own sys.exit, not Allo's
        assert (results[name].status, results[name].cause) == ("error", "user_error"), (name, results[name].message)
        assert "sys.exit" in results[name].message


async def test_a_huge_assertion_message_is_bounded(tmp_path):
    """A 50 MB assertion message went, whole, into the result, the diagnostic and the logs."""
    extra = "\n\ndef test_huge():\n    assert False, 'x' * 50_000_000 + ' the end'\n"
    path = design(tmp_path, extra=extra)
    result = await JobManager().run(spec_for(path, "test_huge", RUN, llvm=fake_llvm_build_dir()))
    assert (result.status, result.cause) == ("failed", "assertion")
    assert len(result.message) <= MESSAGE_LIMIT + 100 and "characters not shown" in result.message
    assert len(result.details["assertion"]) <= DETAIL_LIMIT + 100 and result.details["assertion"].endswith("the end")


async def test_the_directories_of_unfinished_jobs_go_at_the_servers_last_moment(tmp_path, monkeypatch):
    """A SIGTERM'd server has 3 s to end: a job's own clean-up could outlast them (seen once in
    CI), leaving its directory with the editor's text; the exit removes what is left."""
    from allo_lsp.jobs.manager import remove_unfinished_dirs

    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    path = design(tmp_path, "hang")
    manager = JobManager()
    phases = []
    job = asyncio.ensure_future(manager.run(spec_for(path, llvm=fake_llvm_build_dir()), phases.append))
    await until_phase("simulating", [phases], [job])

    def job_dirs():
        return [name for name in os.listdir(shared) if name.startswith(PREFIX)]

    assert len(job_dirs()) == 1
    remove_unfinished_dirs()
    assert job_dirs() == []
    await manager.close()
    assert (await asyncio.wait_for(job, 10)).status == "cancelled"


# -- nothing written into the workspace ------------------------------------------------------------

BYTECODE_SOURCES = """
import sizes  # a module of the workspace


def test_a_python_of_its_own():
    import subprocess, sys
    here = __import__("os").path.dirname(__import__("os").path.abspath(__file__))
    subprocess.run([sys.executable, "-c", "import sizes"], cwd=here, check=True)
"""


def test_jobs_write_no_bytecode_into_the_workspace(tmp_path):
    """`-I` ignores PYTHONDONTWRITEBYTECODE: a synthesis (the stand-in's) and a run of a design
    loaded from disk left `__pycache__/` beside it, with the design's and its modules' bytecode;
    so did a Python the design started itself."""
    workspace = tmp_path / "workspace"
    shutil.copytree(EXAMPLES, workspace, ignore=shutil.ignore_patterns("__pycache__"))
    (workspace / "sizes.py").write_text("SIZE = 8\n")
    path = workspace / "producer_consumer.py"
    path.write_text(path.read_text() + BYTECODE_SOURCES)
    env = {k: v for k, v in os.environ.items() if k not in ("LLVM_BUILD_DIR", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = str(STANDIN)
    env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env['PATH']}"  # the stand-in Vitis HLS
    for command, target in (("synth", "top"), ("run", "test_producer_consumer"), ("run", "test_a_python_of_its_own")):
        out = subprocess.run(
            [sys.executable, "-m", "allo_lsp", command, f"{path}::{target}", "--format", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        result = json.loads(out.stdout)
        assert result["status"] == "passed", (command, target, result["message"])
    assert [d for d, _, _ in os.walk(workspace) if os.path.basename(d) == "__pycache__"] == []
