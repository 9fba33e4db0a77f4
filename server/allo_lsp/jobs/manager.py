"""Runs jobs in fresh, isolated processes and always brings them to an end.

Each job: its own process group (so a timeout or cancel kills everything it started), an
argument vector (no shell), a private 0700 directory as working directory and Allo `project=`,
removed afterwards. One job per key at a time (re-running cancels the previous one), a small
concurrency limit, and progress from the phase lines the runner prints.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from allo_lsp.jobs.outcome import outcome
from allo_lsp.protocol.messages import JobRequest, JobResult, read_json, write_json

PHASE = b"@@allo-lsp phase "
READY = b"@@allo-lsp ready"
_LOG_HEAD = 64 * 1024
_LOG_TAIL = 1024 * 1024
_GRACE_S = 1.0  # between SIGTERM and SIGKILL

Progress = Callable[[str], None]


@dataclass
class JobSpec:
    key: str  # one job per key at a time, e.g. "file::target::simulate"
    request: JobRequest  # `result_path` and `project_dir` are filled in by the manager
    python: str
    env: dict[str, str]
    timeout_s: float
    omp_threads: int | None = None
    pe_count: int | None = None
    keep_dir: bool = False  # keep the job directory (a synthesis report the user opens later)


@dataclass
class _Running:
    spec: JobSpec
    process: asyncio.subprocess.Process | None = None
    cancelled: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)
    marker: str = field(default_factory=lambda: uuid.uuid4().hex)  # JOB_MARKER's value


# In every job's environment, unique to the job: how processes that left its process group (a
# session of their own, a daemon) are found and killed with it.
JOB_MARKER = "ALLO_LSP_JOB"
# Set per job when a pre-started runner takes it (they must be set before Allo loads OpenMP).
_PER_JOB_ENV = ("OMP_NUM_THREADS", "LLVM_BUILD_DIR", JOB_MARKER)


class JobManager:
    def __init__(self, max_concurrent: int = 2, prestart: bool = False) -> None:
        self._slots = asyncio.Semaphore(max_concurrent)
        self._running: dict[str, _Running] = {}
        self._prestart = prestart
        # One pre-started runner per interpreter and environment: imports done, used once.
        self._warm: dict[tuple, asyncio.subprocess.Process] = {}
        # A pre-started runner's JOB_MARKER, given at its start: the processes it forks without
        # exec keep the environment it was started with, whatever the job sets later.
        self._warm_markers: dict[int, str] = {}

    async def close(self) -> None:
        """Let the pre-started runners go (they exit when their stdin closes) and stop jobs."""
        await self.cancel_all()
        for process in self._warm.values():
            if process.stdin is not None:
                process.stdin.close()
            _kill_group(process.pid, signal.SIGTERM)
        self._warm.clear()

    def running(self) -> list[str]:
        return list(self._running)

    async def cancel(self, key: str) -> bool:
        job = self._running.get(key)
        if job is None:
            return False
        job.cancelled = True
        _kill(job.process)
        await job.done.wait()
        return True

    async def cancel_all(self) -> None:
        await asyncio.gather(*(self.cancel(k) for k in list(self._running)))

    async def run(self, spec: JobSpec, progress: Progress = lambda phase: None) -> JobResult:
        await self.cancel(spec.key)  # re-running a target replaces its previous job
        job = _Running(spec)
        self._running[spec.key] = job
        started = time.monotonic()
        try:
            progress("queued")
            async with self._slots:
                if job.cancelled:
                    result = outcome(None, None, "", cancelled=True)
                else:
                    result = await self._execute(job, progress)
        finally:
            if self._running.get(spec.key) is job:
                del self._running[spec.key]
            job.done.set()
        result.duration_s = result.duration_s or round(time.monotonic() - started, 3)
        result.omp_num_threads = result.omp_num_threads or spec.omp_threads
        result.target = result.target or spec.request.target
        result.backend = result.backend or spec.request.backend
        return result

    async def _execute(self, job: _Running, progress: Progress) -> JobResult:
        spec = job.spec
        workdir = tempfile.mkdtemp(prefix="allo-lsp-job-")  # mode 0700
        try:
            request = spec.request
            # Not `result.json`: a design may save a file of that name in its working directory.
            request.result_path = os.path.join(workdir, "allo-lsp-result.json")
            spec.env = {**spec.env, JOB_MARKER: job.marker}
            request.project_dir = request.project_dir or os.path.join(workdir, "project")
            os.makedirs(request.project_dir, exist_ok=True)
            request_path = os.path.join(workdir, "request.json")
            write_json(request_path, request)
            progress("starting")
            argv = [spec.python, "-m", "allo_lsp.runner", request_path]
            log = _Log(progress, _runner_phase)
            warm = self._take_warm(spec, request_path, workdir)
            job.marker = spec.env[JOB_MARKER]  # the pre-started runner's, when one took the job
            try:
                if warm is not None:
                    returncode, timed_out = await self._attach(job, warm, spec.timeout_s, log)
                else:
                    returncode, timed_out = await self._spawn(job, argv, workdir, spec.env, spec.timeout_s, log)
            except OSError as exc:
                return JobResult("error", "environment", f"cannot start {spec.python} (alloDataflow.python): {exc.strerror}")
            # The next runner is pre-started only after a job that ended: not while this task is
            # cancelled (the server shutting down), when a runner started now would outlive it.
            if self._prestart:
                asyncio.ensure_future(self._start_warm(spec))
            result = _result(read_json(request.result_path))
            if result is None and not log.phases and returncode is not None and returncode >= 0 and not job.cancelled:
                final = _not_a_runner(spec.python, returncode, log.text())
            else:
                final = outcome(
                    returncode, result, log.text(), cancelled=job.cancelled,
                    timed_out=timed_out, timeout_s=spec.timeout_s,
                    omp_threads=spec.omp_threads, pe_count=spec.pe_count,
                )
            final.details.setdefault("log", log.text()[-20000:])
            if final.artifact and os.path.isfile(final.artifact):
                with open(final.artifact, encoding="utf-8", errors="replace") as f:
                    final.details["artifact_text"] = f.read()
            if spec.keep_dir:
                final.details["job_dir"] = workdir
            return final
        finally:
            if not spec.keep_dir:
                shutil.rmtree(workdir, ignore_errors=True)

    async def run_tool(self, key: str, argv: list[str], cwd: str, env: dict[str, str], timeout_s: float,
                       phase_of=None, progress: Progress = lambda phase: None) -> ToolRun:
        """Run an external tool (Vitis HLS) with the same guarantees as a runner job: its own
        process group, no shell, a timeout, cancellation under `key`, a bounded log."""
        await self.cancel(key)
        job = _Running(JobSpec(key, JobRequest("tool", "", key, ""), argv[0], env, timeout_s))
        self._running[key] = job
        env = {**env, JOB_MARKER: job.marker}
        log = _Log(progress, phase_of or (lambda line: None))
        started = time.monotonic()
        try:
            async with self._slots:
                returncode, timed_out = await self._spawn(job, argv, cwd, env, timeout_s, log)
        finally:
            if self._running.get(key) is job:
                del self._running[key]
            job.done.set()
        return ToolRun(returncode, log.text(), timed_out, job.cancelled, round(time.monotonic() - started, 3))

    def _warm_key(self, spec: JobSpec) -> tuple:
        env = tuple(sorted((k, v) for k, v in spec.env.items() if k not in _PER_JOB_ENV))
        return (spec.python, env)

    async def _start_warm(self, spec: JobSpec) -> None:
        key = self._warm_key(spec)
        if key in self._warm:
            return
        env = {k: v for k, v in spec.env.items() if k not in _PER_JOB_ENV}
        env[JOB_MARKER] = uuid.uuid4().hex
        try:
            self._warm[key] = await asyncio.create_subprocess_exec(
                spec.python, "-m", "allo_lsp.runner", "--warm", cwd=tempfile.gettempdir(), env=env,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            )
            self._warm_markers[self._warm[key].pid] = env[JOB_MARKER]
        except OSError:
            pass  # the next job starts cold and says what is wrong

    def _take_warm(self, spec: JobSpec, request_path: str, workdir: str):
        """A pre-started runner for this job, given its job; None to start one cold."""
        process = self._warm.pop(self._warm_key(spec), None)
        marker = self._warm_markers.pop(process.pid, None) if process is not None else None
        if process is None or process.returncode is not None or process.stdin is None or marker is None:
            return None
        spec.env = {**spec.env, JOB_MARKER: marker}
        job_env = {name: spec.env.get(name) for name in _PER_JOB_ENV}
        line = json.dumps({"request": request_path, "cwd": workdir, "env": job_env}) + "\n"
        try:
            process.stdin.write(line.encode())
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            return None
        return process

    async def _spawn(self, job: _Running, argv: list[str], cwd: str, env: dict[str, str], timeout_s: float,
                     log: _Log) -> tuple[int | None, bool]:
        """Start `argv` in a new session and see it through (`_attach`). OSError when it cannot
        start."""
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
        )
        return await self._attach(job, process, timeout_s, log)

    async def _attach(self, job: _Running, process, timeout_s: float, log: _Log) -> tuple[int | None, bool]:
        """Collect a started process's output, wait with a timeout, and kill its whole group at
        the end (children that outlived it too)."""
        job.process = process
        reader = asyncio.ensure_future(log.consume(job.process.stdout))
        timed_out = False
        try:
            await asyncio.wait_for(_exited(job.process), timeout_s)
        except asyncio.TimeoutError:
            timed_out = True
            _kill(job.process)
            await _exited(job.process)
        except asyncio.CancelledError:
            _kill(job.process)
            raise
        finally:
            _kill_group(job.process.pid)
            _kill_marked(job.marker)
        try:
            await asyncio.wait_for(reader, 2.0)
        except asyncio.TimeoutError:
            reader.cancel()
        return job.process.returncode, timed_out


@dataclass
class ToolRun:
    returncode: int | None
    log: str
    timed_out: bool
    cancelled: bool
    duration_s: float


def _runner_phase(line: bytes) -> str | None:
    if line.startswith(PHASE):
        return line[len(PHASE):].decode("utf-8", "replace").strip()
    if line.startswith(READY):
        return "started"
    return None


class _Log:
    """The process's output: head and tail kept (a runner may print 100 MB), phases reported."""

    def __init__(self, progress: Progress, phase_of) -> None:
        self.progress = progress
        self.phase_of = phase_of  # line -> phase name, or None for an ordinary line
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.phases = 0  # phase lines seen: the runner did start
        self._partial = b""

    async def consume(self, stream: asyncio.StreamReader) -> None:
        while True:
            chunk = await stream.read(65536)
            if not chunk:
                return
            self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()[-4096:]
        for line in lines:
            phase = self.phase_of(line)
            if phase is not None:
                self.phases += 1
                self.progress(phase)
                if line.startswith((PHASE, READY)):
                    continue  # the runner's own markers are not part of the user's log
            self._keep(line + b"\n")

    def _keep(self, data: bytes) -> None:
        room = _LOG_HEAD - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > 2 * _LOG_TAIL:
            self.dropped += len(self.tail) - _LOG_TAIL
            del self.tail[: len(self.tail) - _LOG_TAIL]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output not kept ...]\n" if self.dropped else ""
        rest = self.tail + self._partial
        return (bytes(self.head) + middle.encode() + bytes(rest)).decode("utf-8", "replace")


def _not_a_runner(python: str, returncode: int, log: str) -> JobResult:
    """The interpreter exited without ever starting our runner: not Python 3.10+, or broken."""
    tail = "\n".join(log.strip().splitlines()[-5:])
    return JobResult(
        "error", "environment",
        f"{python} (alloDataflow.python) did not start the allo-lsp runner: it exited with status {returncode}"
        + (f":\n{tail}\n" if tail else ". ") + "It must be a Python 3.10+ interpreter of your Allo environment.",
    )


def _result(data: dict | None) -> JobResult | None:
    """The runner's result, or None when the file is missing, torn or not a result at all."""
    try:
        return JobResult.from_dict(data) if data else None
    except (TypeError, ValueError, AttributeError):
        return None


async def _exited(process: asyncio.subprocess.Process) -> int:
    """The exit status, as soon as the process has exited. `Process.wait()` also waits until
    its output pipe is closed, which a child that outlived it can hold open until the timeout."""
    while process.returncode is None:
        await asyncio.sleep(0.02)
    return process.returncode


def _kill_marked(marker: str) -> None:
    """SIGKILL the processes whose environment carries this job's marker: those that left the
    job's process group inherited it. Linux (/proc); elsewhere the process group is all."""
    needle = f"{JOB_MARKER}={marker}".encode()
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return
    for entry in entries:
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError):
            continue


def _kill(process: asyncio.subprocess.Process | None) -> None:
    if process is None or process.returncode is not None:
        return
    _kill_group(process.pid, signal.SIGTERM)
    asyncio.get_running_loop().call_later(_GRACE_S, _kill_group, process.pid)


def _kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
