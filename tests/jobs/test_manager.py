"""The job manager's guarantees, with real processes: cancel, replace, isolate, bound."""

import asyncio
import os
import sys

from allo_lsp.analysis import analyze
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.launch import Target, prepare
from allo_lsp.jobs.manager import JobManager
from allo_lsp.protocol.details import RunDetails, SimulateDetails
from allo_lsp.protocol.messages import RUN, SIMULATE
from allo_lsp.protocol.pipes import WATCHDOG_FD
from designs import alive, design, fake_llvm_build_dir, pids, until_phase
from paths import STANDIN
from waiting import until_sync


def spec_for(path, name="top", kind=SIMULATE, timeout=30.0, llvm=None):
    config = JobConfig(llvm_build_dir=llvm or "", timeout_s=timeout, extra_env={"PYTHONPATH": str(STANDIN)})
    return prepare(Target(str(path), name, kind), analyze(path.read_text()).model, config)


async def test_cancel_kills_the_job_and_reports_cancelled(tmp_path):
    path = design(tmp_path, "hang")
    manager = JobManager()
    phases = []
    job = asyncio.ensure_future(manager.run(spec_for(path, llvm=fake_llvm_build_dir()), phases.append))
    await until_phase("simulating", [phases], [job])
    assert manager.cancel(spec_for(path, llvm=fake_llvm_build_dir()).key)  # answers at once
    result = await asyncio.wait_for(job, 5)
    assert result.status == "cancelled"
    assert phases[:2] == ["queued", "starting"] and "loading" in phases
    assert not any(alive(p) for p in pids(path))


async def test_rerunning_a_target_cancels_the_previous_job(tmp_path):
    path = design(tmp_path, "hang")
    llvm = fake_llvm_build_dir()
    manager = JobManager()
    phases = []
    first = asyncio.ensure_future(manager.run(spec_for(path, llvm=llvm), phases.append))
    await until_phase("simulating", [phases], [first])
    second = asyncio.ensure_future(manager.run(spec_for(path, llvm=llvm, timeout=1)))
    assert (await asyncio.wait_for(first, 5)).status == "cancelled"
    assert (await asyncio.wait_for(second, 10)).status == "timeout"


async def test_concurrency_is_limited(tmp_path):
    llvm = fake_llvm_build_dir()
    manager = JobManager(max_concurrent=1)
    paths = [design(tmp_path, "ok", name=f"d{i}.py") for i in range(3)]
    results = await asyncio.gather(*(manager.run(spec_for(p, llvm=llvm)) for p in paths))
    assert [r.status for r in results] == ["passed"] * 3


async def test_job_directory_is_private_and_removed(tmp_path):
    extra = (
        "\n\ndef test_where():\n"
        "    import os, stat\n"
        "    mode = stat.S_IMODE(os.stat(os.getcwd()).st_mode)\n"
        "    open(os.path.join(os.path.dirname(__file__), 'cwd.txt'), 'w').write(f'{os.getcwd()} {mode:o}')\n"
    )
    path = design(tmp_path, extra=extra)
    result = await JobManager().run(spec_for(path, "test_where", RUN, llvm=fake_llvm_build_dir()))
    assert result.status == "passed", result.message
    cwd, mode = (tmp_path / "cwd.txt").read_text().split()
    assert mode == "700" and not os.path.exists(cwd)


async def test_awkward_file_names_need_no_shell(tmp_path):
    llvm = fake_llvm_build_dir()
    for name in ["with space.py", "quote'and\"double.py", "-leading-dash.py", "new\nline.py"]:
        directory = tmp_path / name.replace(".py", "")
        directory.mkdir()
        path = design(directory, name=name)
        result = await JobManager().run(spec_for(path, llvm=llvm))
        assert result.status == "passed", (name, result.message)


async def test_huge_and_invalid_output_is_bounded(tmp_path):
    extra = (
        "\n\ndef test_noisy():\n"
        "    import sys\n"
        "    chunk = b'\\xff\\xfe not utf-8 ' * 4096\n"
        "    for _ in range(400):\n"
        "        sys.stdout.buffer.write(chunk + b'\\n')\n"
        "    sys.stdout.flush()\n"
        "    raise ValueError('after the noise')\n"
    )
    path = design(tmp_path, extra=extra)
    result = await JobManager().run(spec_for(path, "test_noisy", RUN, llvm=fake_llvm_build_dir()))
    assert (result.status, result.cause) == ("failed", "user_error")
    assert "after the noise" in result.message
    assert len(result.details["log"]) <= 20000 and "\ufffd" in result.details["log"]


async def test_a_result_has_the_details_of_its_kind_whatever_ended_the_job(tmp_path):
    extra = (
        "\n\nimport pytest\n\n@pytest.mark.parametrize('n', [1, 2])\n"
        "def test_cases(n):\n    print('case', n)\n    assert n == 1\n"
    )
    path = design(tmp_path, extra=extra)
    ran = await JobManager().run(spec_for(path, "test_cases", RUN, llvm=fake_llvm_build_dir()))
    assert (ran.status, type(ran.details)) == ("failed", RunDetails)
    assert [(case.id, case.status) for case in ran.details.parameters] == [("1", "passed"), ("2", "failed")]
    assert "case 2" in ran.details.log
    (tmp_path / "hang").mkdir()
    hung = design(tmp_path / "hang", "hang")
    timed_out = await JobManager().run(spec_for(hung, llvm=fake_llvm_build_dir(), timeout=1))
    assert (timed_out.status, type(timed_out.details)) == ("timeout", SimulateDetails)


async def test_a_timeout_before_the_runner_says_anything_is_a_timeout(tmp_path):
    """A job whose runner had printed nothing yet when its timeout came (a timeout shorter than the
    runner's start, with no pre-started runner) was said not to be a runner at all: "error:
    environment", blaming alloDataflow.python. The interpreter here does what the runner's
    watchdog does at a timeout, and nothing else: it waits for the server's end of the watchdog
    pipe to close, then exits 137 (128 + SIGKILL). `allo-lsp run --backend reference --timeout 0.2`
    of an example said "environment" every time (0.001 to 0.2 s tried)."""
    python = tmp_path / "python"
    python.write_text(
        f"#!{sys.executable} -I\nimport os, sys\n"
        f"os.read(int(sys.argv[sys.argv.index({WATCHDOG_FD!r}) + 1]), 1)\nsys.exit(137)\n"
    )
    python.chmod(0o755)
    spec = spec_for(design(tmp_path), llvm=fake_llvm_build_dir(), timeout=0.05)
    spec.python = str(python)
    result = await JobManager().run(spec)
    assert (result.status, result.cause) == ("timeout", "timeout"), result.message


async def test_missing_interpreter_is_a_clear_error(tmp_path):
    path = design(tmp_path)
    spec = spec_for(path, llvm=fake_llvm_build_dir())
    spec.python = str(tmp_path / "no-python")
    result = await JobManager().run(spec)
    assert (result.status, result.cause) == ("error", "environment") and "cannot start" in result.message


async def test_a_prestarted_runner_takes_the_next_job(tmp_path):
    """After one job, a runner with its imports done waits; the next job starts in it at once,
    with its own OMP_NUM_THREADS (set before Allo loads OpenMP)."""
    extra = (
        "\n\ndef test_where():\n"
        "    import os\n"
        "    started = int(open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19])\n"
        "    age = float(open('/proc/uptime').read().split()[0]) - started / os.sysconf('SC_CLK_TCK')\n"
        "    open(os.path.join(os.path.dirname(__file__), 'seen.txt'), 'a').write(\n"
        "        f\"{os.getpid()} {os.environ['OMP_NUM_THREADS']} {age}\\n\")\n"
    )
    path = design(tmp_path, extra=extra)
    manager = JobManager(prestart=True)
    first = spec_for(path, "test_where", RUN, llvm=fake_llvm_build_dir())
    assert (await manager.run(first)).status == "passed"
    # The replacement runner imports numpy meanwhile. A time, not an event: nothing tells when a
    # pre-started runner's imports are done (it is read only once it has a job).
    await asyncio.sleep(1.5)
    second = spec_for(path, "test_where", RUN, llvm=fake_llvm_build_dir())
    second.env["OMP_NUM_THREADS"] = "7"
    assert (await manager.run(second)).status == "passed"
    (pid1, omp1, age1), (pid2, omp2, age2) = [line.split() for line in (tmp_path / "seen.txt").read_text().splitlines()]
    assert pid1 != pid2 and (omp1, omp2) == ("2", "7")
    assert float(age1) < 1.0 <= float(age2)  # the second ran in a process started before the job
    await manager.close()
    until_sync(lambda: not alive(int(pid2)), what=f"the pre-started runner {pid2} gone", timeout=5, poll_s=0.02)
