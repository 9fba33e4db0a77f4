"""Runs jobs in fresh, isolated processes and always brings them to an end.

Each job: an isolated interpreter (`isolation.py`: `-I`, no working directory on `sys.path`) in
its own process group, under a watchdog that is a subreaper for everything the job starts
(`runner/watchdog.py`), an argument vector (no shell), a private 0700 directory as working
directory and Allo `project=`, removed afterwards. The request goes in on the runner's stdin and
the result comes back on a pipe only the runner holds; it is believed only when the runner then
exits 0 in time (`outcome.py`). The watchdog ends the job when its pipe from the server closes:
at a cancel or timeout, and when the server dies (even by SIGKILL). One job per key at a time, a
small concurrency limit, and progress from the phase lines the runner prints.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from allo_lsp.jobs.isolation import (
    job_dir,
    remove_orphaned_dirs,
    remove_runner_root,
    runner_argv,
    runner_root,
    tool_argv,
)
from allo_lsp.jobs.outcome import outcome
from allo_lsp.protocol.messages import DETAIL_LIMIT, JobRequest, JobResult
from allo_lsp.protocol.pipes import JobLine, is_marker, phase_of, read_result

_LOG_HEAD = 64 * 1024
_LOG_TAIL = 1024 * 1024
_RESULT_LIMIT = 16 * 1024 * 1024  # more on the result pipe is not a result
_WATCHDOG_S = 1.0  # a watchdog that has not ended its job by then is killed with its group

Progress = Callable[[str], None]


@dataclass
class JobSpec:
    key: str  # one job per key at a time, e.g. "file::target::simulate"
    request: JobRequest  # `project_dir` is filled in by the manager
    python: str
    env: dict[str, str]
    timeout_s: float
    omp_threads: int | None = None
    pe_count: int | None = None
    keep_dir: bool = False  # keep the job directory (a synthesis report the user opens later)


class _Watchdog:
    """The server's end of a job's watchdog pipe: closing it (or the server's death) makes the
    watchdog SIGKILL every process of the job, then exit."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def stop(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@dataclass
class _Runner:
    """A started runner: its process (the watchdog's pid), the result pipe being read, its
    watchdog pipe."""

    process: asyncio.subprocess.Process
    result: _PipeReader
    watchdog: _Watchdog
    marker: str  # JOB_MARKER's value in its environment
    root: str  # the runner's directory it imports from (`isolation.runner_root`)

    def stop(self) -> None:
        self.watchdog.stop()


@dataclass
class _Running:
    spec: JobSpec
    process: asyncio.subprocess.Process | None = None
    watchdog: _Watchdog | None = None
    cancelled: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)
    marker: str = field(default_factory=lambda: uuid.uuid4().hex)  # JOB_MARKER's value


# In every job's environment, unique to the job: how processes that left its process group (a
# session of their own, a daemon) are found and killed with it.
JOB_MARKER = "ALLO_LSP_JOB"
# Directories of jobs not yet ended (and not to be kept): removed at exit, whatever ends the
# server. Cancelled by a SIGTERM, a job's own clean-up can outlast the server's last seconds; the
# lock keeps the two from removing one directory at once, when each can see the other's half-removed
# tree, give up on a directory it finds not empty, and the exit then stops the one still at work.
_UNFINISHED: set[str] = set()
_REMOVING = threading.Lock()


def _remove_unfinished(path: str) -> None:
    with _REMOVING:
        shutil.rmtree(path, ignore_errors=True)
        _UNFINISHED.discard(path)


def remove_unfinished_dirs() -> None:
    """For the server's last moment: the jobs' processes are killed by their watchdogs."""
    for path in list(_UNFINISHED):
        _remove_unfinished(path)
    remove_runner_root()


# Set per job when a pre-started runner takes it (they must be set before Allo loads OpenMP).
_PER_JOB_ENV = ("OMP_NUM_THREADS", "LLVM_BUILD_DIR")


class JobManager:
    """`prestart`: after a job, a runner for the next is started (an editor's server).
    `owns_kept_dirs`: kept job directories (synthesis projects) are this process's too, removed
    by the next server once it is gone; otherwise (`allo-lsp synth`) they outlive it."""

    def __init__(self, max_concurrent: int = 2, prestart: bool = False, owns_kept_dirs: bool = False) -> None:
        self._slots = asyncio.Semaphore(max_concurrent)
        self._running: dict[str, _Running] = {}
        self._prestart = prestart
        self._owns_kept_dirs = owns_kept_dirs
        # One pre-started runner per interpreter and environment: imports done, used once.
        self._warm: dict[tuple, _Runner] = {}
        self._warming: set[tuple] = set()  # being started: a second start would stay idle forever
        self._warm_starts: set[asyncio.Task] = set()
        self._settings_changes = 0  # a runner started before the last change is let go when up
        self._closed = False
        if prestart:
            # A server killed by SIGKILL left its job directories (with the editor's outputs).
            threading.Thread(target=remove_orphaned_dirs, daemon=True).start()

    async def close(self, wait_s: float = 2.0) -> None:
        """Stop every job and let the pre-started runners go; wait up to `wait_s` for the jobs
        to have ended (their directories removed). Their processes die whatever: the watchdogs
        kill them."""
        self._closed = True
        jobs = list(self._running.values())
        for key in list(self._running):
            self.cancel(key)
        self.discard_warm()
        if jobs:
            await asyncio.wait([asyncio.ensure_future(job.done.wait()) for job in jobs], timeout=wait_s)

    def running(self) -> list[str]:
        return list(self._running)

    def discard_warm(self) -> None:
        """Let the pre-started runners go, and those being started: the interpreter or the
        environment they were started for is no longer the configured one, and a runner left
        would wait, unused, as long as the server lives."""
        self._settings_changes += 1
        for runner in self._warm.values():
            _discard(runner)
        self._warm.clear()

    async def prestarting(self) -> int:
        """Wait for the runners being pre-started; the number of those waiting for a job."""
        while self._warm_starts:
            await asyncio.gather(*self._warm_starts, return_exceptions=True)
        return len(self._warm)

    def cancel(self, key: str) -> bool:
        """Cancel the job under `key` (False: there is none). Returns at once: the job's
        processes are being killed, and `run` returns "cancelled" when they are gone."""
        job = self._running.get(key)
        if job is None:
            return False
        job.cancelled = True
        if job.watchdog is not None:
            job.watchdog.stop()
        return True

    async def cancelled(self, key: str) -> None:
        """Wait until the job under `key`, cancelled, has ended."""
        job = self._running.get(key)
        if job is not None:
            await job.done.wait()

    async def cancel_all(self) -> None:
        keys = list(self._running)
        for key in keys:
            self.cancel(key)
        await asyncio.gather(*(self.cancelled(k) for k in keys))

    async def run(self, spec: JobSpec, progress: Progress = lambda phase: None) -> JobResult:
        if self.cancel(spec.key):  # re-running a target replaces its previous job
            await self.cancelled(spec.key)
        job = _Running(spec)
        self._running[spec.key] = job
        started = time.monotonic()
        try:
            progress("queued")
            async with self._slots:
                if job.cancelled or self._closed:
                    result = outcome(None, None, "", cancelled=True)
                else:
                    result = await self._execute(job, progress)
        finally:
            if self._running.get(spec.key) is job:
                del self._running[spec.key]
            job.done.set()
        result.of_kind(spec.request.kind)  # a cancel, a timeout or a crash as well as the runner's result
        result.duration_s = result.duration_s or round(time.monotonic() - started, 3)
        result.omp_num_threads = result.omp_num_threads or spec.omp_threads
        result.target = result.target or spec.request.target
        result.backend = result.backend or spec.request.backend
        return result

    async def _execute(self, job: _Running, progress: Progress) -> JobResult:
        spec = job.spec
        workdir = job_dir(kept=spec.keep_dir and not self._owns_kept_dirs)
        if not spec.keep_dir:
            _UNFINISHED.add(workdir)
        progress("starting")
        try:
            root = await asyncio.to_thread(runner_root)  # made at the first job: copied, compiled
            runner = self._take_warm(spec, root)
            if runner is None:
                runner = await self._start_runner(spec.python, spec.env, workdir, root)
        except OSError as exc:
            _remove_unfinished(workdir)
            return JobResult(
                "error", "environment", f"cannot start {spec.python} (alloDataflow.python): {exc.strerror}"
            )
        try:
            request = spec.request
            request.project_dir = request.project_dir or os.path.join(workdir, "project")
            os.makedirs(request.project_dir, exist_ok=True)
            nonce = secrets.token_hex(16)
            log = _Log(progress, phase_of)
            _send(runner, request, workdir, {name: spec.env.get(name) for name in _PER_JOB_ENV}, nonce)
            job.watchdog, job.marker = runner.watchdog, runner.marker
            if job.cancelled:  # cancelled while it started
                runner.stop()
            returncode, timed_out = await self._attach(job, runner.process, spec.timeout_s, log)
            # The next runner is pre-started only after a job that ended: not while this task is
            # cancelled (the server shutting down), when a runner started now would outlive it.
            if self._prestart and not self._closed:
                task = asyncio.ensure_future(self._start_warm(spec))
                self._warm_starts.add(task)
                task.add_done_callback(self._warm_starts.discard)
            try:  # the job's processes are gone: the pipe's last writer too, normally
                await asyncio.wait_for(runner.result.closed.wait(), 2.0)
            except asyncio.TimeoutError:
                pass  # something outside the job holds it open: what came before counts
            result = read_result(runner.result.data(), nonce, request.kind)
            # A job killed at its timeout before the runner said anything is a timeout, not a bad interpreter.
            ended_itself = not (job.cancelled or timed_out)
            if result is None and not log.phases and returncode is not None and returncode >= 0 and ended_itself:
                final = _not_a_runner(spec.python, returncode, log.text())
            else:
                final = outcome(
                    returncode,
                    result,
                    log.text(),
                    cancelled=job.cancelled,
                    timed_out=timed_out,
                    timeout_s=spec.timeout_s,
                    omp_threads=spec.omp_threads,
                    pe_count=spec.pe_count,
                )
            details = final.details  # the fields of every kind's
            if details.log is None:
                details.log = log.text()[-DETAIL_LIMIT:]
            if final.artifact and os.path.isfile(final.artifact):
                with open(final.artifact, encoding="utf-8", errors="replace") as f:
                    details.artifact_text = f.read()
            if spec.keep_dir:
                details.job_dir = workdir
            return final
        finally:
            runner.stop()
            runner.result.close()
            if not spec.keep_dir:
                _remove_unfinished(workdir)

    async def run_tool(
        self,
        key: str,
        argv: list[str],
        cwd: str,
        env: dict[str, str],
        timeout_s: float,
        phase_of=None,
        progress: Progress = lambda phase: None,
    ) -> ToolRun:
        """Run an external tool (Vitis HLS) with the same guarantees as a runner job: its own
        process group, no shell, a timeout, cancellation under `key`, a bounded log."""
        if self.cancel(key):
            await self.cancelled(key)
        job = _Running(JobSpec(key, JobRequest("tool", "", key), argv[0], env, timeout_s))
        self._running[key] = job
        env = {**env, JOB_MARKER: job.marker}
        log = _Log(progress, phase_of or (lambda line: None))
        started = time.monotonic()
        try:
            async with self._slots:
                if job.cancelled or self._closed:
                    return ToolRun(None, "", False, True, 0.0)
                watchdog_read, watchdog_write = os.pipe()
                try:
                    process = await asyncio.create_subprocess_exec(
                        *tool_argv(argv, watchdog_read),
                        cwd=cwd,
                        env=env,
                        stdin=asyncio.subprocess.DEVNULL,
                        stdout=asyncio.subprocess.PIPE,
                        stderr=asyncio.subprocess.STDOUT,
                        start_new_session=True,
                        pass_fds=(watchdog_read,),
                    )
                except BaseException:
                    os.close(watchdog_write)
                    raise
                finally:
                    os.close(watchdog_read)
                job.watchdog = _Watchdog(watchdog_write)
                if job.cancelled:
                    job.watchdog.stop()
                try:
                    returncode, timed_out = await self._attach(job, process, timeout_s, log)
                finally:
                    job.watchdog.stop()
        finally:
            if self._running.get(key) is job:
                del self._running[key]
            job.done.set()
        return ToolRun(returncode, log.text(), timed_out, job.cancelled, round(time.monotonic() - started, 3))

    def _warm_key(self, spec: JobSpec) -> tuple:
        env = tuple(sorted((k, v) for k, v in spec.env.items() if k not in _PER_JOB_ENV))
        return (spec.python, env)

    async def _start_runner(self, python: str, env: dict[str, str], workdir: str | None, root: str) -> _Runner:
        """Start a runner in its job's directory, or (None) a pre-started one in `/`, a directory
        nobody else can write, until its job says where to go. OSError when it cannot start."""
        result_read, result_write = os.pipe()
        watchdog_read, watchdog_write = os.pipe()
        marker = uuid.uuid4().hex
        try:
            process = await asyncio.create_subprocess_exec(
                *runner_argv(python, root, result_write, watchdog_read, warm=workdir is None),
                cwd=workdir or "/",
                env={**{k: v for k, v in env.items() if k != JOB_MARKER}, JOB_MARKER: marker},
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(result_write, watchdog_read),
            )
        except BaseException:
            for fd in (result_read, watchdog_write):
                os.close(fd)
            raise
        finally:
            os.close(result_write)  # only the runner writes its result
            os.close(watchdog_read)
        return _Runner(process, _PipeReader(result_read, _RESULT_LIMIT), _Watchdog(watchdog_write), marker, root)

    async def _start_warm(self, spec: JobSpec) -> None:
        key = self._warm_key(spec)
        if self._closed or key in self._warm or key in self._warming:
            return
        self._warming.add(key)
        changes = self._settings_changes
        try:
            env = {k: v for k, v in spec.env.items() if k not in _PER_JOB_ENV}
            runner = await self._start_runner(spec.python, env, None, await asyncio.to_thread(runner_root))
        except OSError:
            return  # the next job starts cold and says what is wrong
        finally:
            self._warming.discard(key)
        if self._closed or key in self._warm or changes != self._settings_changes:
            _discard(runner)
        else:
            self._warm[key] = runner

    def _take_warm(self, spec: JobSpec, root: str) -> _Runner | None:
        """A pre-started runner for this job; None to start one cold."""
        runner = self._warm.pop(self._warm_key(spec), None)
        if runner is None:
            return None
        gone = (
            runner.process.returncode is not None or runner.process.stdin is None or runner.process.stdin.is_closing()
        )
        if gone or runner.root != root:  # its runner's directory was made again since
            _discard(runner)
            return None
        return runner

    async def _attach(self, job: _Running, process, timeout_s: float, log: _Log) -> tuple[int | None, bool]:
        """Collect a started process's output, wait with a timeout, and make sure at the end
        that nothing of it is left: its watchdog kills the job's processes and exits; if it
        has not within _WATCHDOG_S (stopped by the design, say), its process group and the
        processes with the job's marker are killed."""
        job.process = process
        reader = asyncio.ensure_future(log.consume(process.stdout))
        timed_out = False
        try:
            await asyncio.wait_for(_exited(process), timeout_s)
        except asyncio.TimeoutError:
            timed_out = True
        finally:
            job.watchdog.stop()
            try:
                await asyncio.wait_for(asyncio.shield(_exited(process)), _WATCHDOG_S)
            except asyncio.TimeoutError:
                pass
            _kill_group(process.pid)
            _kill_marked(job.marker)
        await _exited(process)
        try:
            await asyncio.wait_for(reader, 2.0)
        except asyncio.TimeoutError:
            reader.cancel()
        return process.returncode, timed_out


def _send(runner: _Runner, request: JobRequest, cwd: str, env: dict[str, str | None], nonce: str) -> None:
    """The job, as one line on the runner's stdin; then stdin is closed."""
    stdin = runner.process.stdin
    try:
        stdin.write(JobLine(request, cwd, env, nonce).encode())
        stdin.close()  # written out before the pipe closes
    except (BrokenPipeError, ConnectionResetError):
        pass  # the runner is gone: it exits without a result, and that is the outcome


def _discard(runner: _Runner) -> None:
    """A pre-started runner no longer needed: its watchdog ends it."""
    if runner.process.stdin is not None:
        runner.process.stdin.close()
    runner.stop()
    runner.result.close()


class _PipeReader:
    """Reads a pipe into memory until its last writer closes it (nothing past `limit`)."""

    def __init__(self, fd: int, limit: int) -> None:
        self._fd: int | None = fd
        self._limit = limit
        self._chunks: list[bytes] = []
        self._size = 0
        self.closed = asyncio.Event()
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._readable)

    def _readable(self) -> None:
        try:
            chunk = os.read(self._fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return
        self._size += len(chunk)
        if self._size <= self._limit:
            self._chunks.append(chunk)

    def close(self) -> None:
        if self._fd is not None:
            asyncio.get_running_loop().remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
            self.closed.set()

    def data(self) -> bytes:
        return b"".join(self._chunks) if self._size <= self._limit else b""


@dataclass
class ToolRun:
    returncode: int | None
    log: str
    timed_out: bool
    cancelled: bool
    duration_s: float


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
                if is_marker(line):
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
    if "No module named 'numpy'" in tail:  # the runner itself needs numpy, as Allo does
        return JobResult(
            "error",
            "environment",
            f"{python} (alloDataflow.python) has neither Allo nor numpy, so no job can run there. "
            "Choose your Allo environment's interpreter (Allo: Select Interpreter), or install Allo "
            "(or numpy, for the reference executor) into it.",
        )
    return JobResult(
        "error",
        "environment",
        f"{python} (alloDataflow.python) did not start the allo-lsp runner: it exited with status {returncode}"
        + (f":\n{tail}\n" if tail else ". ")
        + "It must be a Python 3.10+ interpreter of your Allo environment.",
    )


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


def _kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
