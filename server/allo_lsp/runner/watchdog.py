"""The runner's first act: split into a watchdog (this process) and the runner (its child).

The job manager starts `python -I -B -u -c BOOTSTRAP ...`; that process becomes the job's
watchdog and forks the runner, which loads the design (an external tool, Vitis HLS, gets the same watchdog:
`run_command`). The watchdog is tiny, runs no user code and holds no
lock the design can take, so it can always bring the job to an end:

- it is a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`): every process of the job that loses
  its parent (a double-forked daemon, a child started with `setsid` and a clean environment)
  becomes its child, so "the processes of this job" is exactly "the watchdog's descendants";
- when the runner exits, when the server closes the job's watchdog pipe (cancel, timeout) and
  when the server dies (the pipe's only writer is gone), it SIGKILLs all its descendants and
  exits with the runner's own status (or dies of the runner's signal), which is what the job
  manager reads;
- the runner dies with the watchdog (`PR_SET_PDEATHSIG`), so SIGKILL of the watchdog's process
  group leaves no runner behind either.

Stdlib only; outside Linux the watchdog is a plain parent and the process group does the rest.
"""

from __future__ import annotations

import os
import select
import signal

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when `parent` goes (checked once more: it may be gone already)."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(70)


def supervise(watchdog_fd: int | None, keep: tuple[int, ...]) -> None:
    """Fork the runner and return in it; this process stays the watchdog until the job ends.

    `watchdog_fd`: the read end of the server's watchdog pipe (EOF: stop the job now).
    `keep`: the runner's file descriptors the watchdog must not hold open (the result pipe):
    closed here, so that their readers see EOF when the runner's processes are gone.
    """
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    me = os.getpid()
    runner = os.fork()
    if runner == 0:
        die_with_parent(me)
        return
    _watch_until_done(runner, watchdog_fd, keep)


def run_command(watchdog_fd: int, argv: list[str]) -> None:
    """The same watch over an external tool (Vitis HLS): fork, exec `argv` in the child (which
    dies with this watchdog), and end everything it started when it exits or the pipe closes."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    me = os.getpid()
    tool = os.fork()
    if tool == 0:
        os.close(watchdog_fd)
        die_with_parent(me)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"cannot start {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    _watch_until_done(tool, watchdog_fd, ())


def _watch_until_done(child: int, watchdog_fd: int | None, keep: tuple[int, ...]) -> None:
    """The watchdog's life: nothing of the job's I/O stays open here; wait; kill; exit as the
    child did. Never returns."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the server's SIGTERM is for the child
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    for fd in keep:
        try:
            os.close(fd)
        except OSError:
            pass
    status = _watch(child, watchdog_fd)
    _kill_descendants(os.getpid())
    _exit_as(status)


def _watch(runner: int, watchdog_fd: int | None) -> int | None:
    """Wait for the runner to exit (its wait status) or for the watchdog pipe to close (None)."""
    try:
        pidfd = os.pidfd_open(runner)
    except (AttributeError, OSError):
        pidfd = None
    watched = [fd for fd in (watchdog_fd, pidfd) if fd is not None]
    while True:
        done, status = _reaped(runner)
        if done:
            return status
        # Without a pidfd, poll the runner's exit every 50 ms.
        ready, _, _ = select.select(watched, [], [], None if pidfd is not None else 0.05)
        if watchdog_fd in ready:
            try:
                if not os.read(watchdog_fd, 4096):
                    return None  # the server closed the pipe or died: stop the job
            except OSError:
                return None


def _reaped(runner: int) -> tuple[bool, int | None]:
    """Reap every exited child (orphans of the job come here); (True, status) once the runner has."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True, None
        if pid == 0:
            return False, None
        if pid == runner:
            return True, status


def descendants(root: int) -> list[int]:
    """Pids whose chain of parents leads to `root` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [int(e) for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    for pid in entries:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    out, pending = [], [root]
    while pending:
        for child in children.get(pending.pop(), []):
            out.append(child)
            pending.append(child)
    return out


def _kill_descendants(me: int) -> None:
    """SIGKILL the job's processes until none is left (a fork bomb adds some while we kill)."""
    import time

    for _ in range(200):
        found = descendants(me)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        time.sleep(0.005)  # the killed ones' orphans are reparented here: reap them next round
    try:
        os.killpg(0, signal.SIGKILL)  # cannot get ahead of it: the whole group, this process too
    except OSError:
        pass


def _reap() -> None:
    """Reap the children that have exited (killed ones are zombies until then)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _exit_as(status: int | None) -> None:
    """Exit as the runner did: its exit code, or death by its signal (no core file)."""
    if status is None:
        os._exit(137)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ImportError, OSError, ValueError):
            pass
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those have no handler to reset
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        os.kill(os.getpid(), signal.SIGKILL)  # a signal whose default is not to die
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)
