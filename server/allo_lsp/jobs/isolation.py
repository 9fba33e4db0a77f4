"""How the interpreters we start are isolated, and whose job directories are whose.

Every interpreter we start runs with `-I`: neither its working directory nor a script's directory
is on `sys.path` (a `numpy.py` planted in the temporary directory, or an `allo_lsp/` in the
workspace, would otherwise run), and `PYTHON*` variables and the user site are ignored. The
runner still needs what the user's environment puts on the path (Allo installed through
`PYTHONPATH`): `BOOTSTRAP` adds the absolute `PYTHONPATH` entries and, for a plain (non-venv)
interpreter as Python would, the user site, then runs the runner. The design's own directory is
put on `sys.path` by the runner when it loads the design. A runner writes no bytecode (`-B`: the
variable that says so is one `-I` ignores), so no `__pycache__` appears beside the user's files.

The runner is imported from `runner_root()`, a private, read-only copy of our `runner/` and
`protocol/` packages (all the runner imports: tests/test_layers.py), and from nowhere else of
the server's: the directory holding our package is, installed from a wheel, the server venv's
whole site-packages, whose numpy (built for the server's Python) broke every job in an Allo
environment of another Python.

A job directory, and the runner's copy, is named after the server that made it (pid and start
time): a new server removes those of servers that are gone (`remove_orphaned_dirs`), since a
server killed with SIGKILL cannot remove its own.
"""

from __future__ import annotations

import atexit
import compileall
import os
import re
import shutil
import stat
import sys
import tempfile
import threading

from allo_lsp.jobs.environment import PACKAGE_ROOT
from allo_lsp.protocol.pipes import RESULT_FD, WARM, WATCHDOG_FD

# argv[1] is the runner's directory (`runner_root`): first on the path, so that our `allo_lsp` is
# the one imported even where the Allo environment has another.
BOOTSTRAP = """\
import os, sys
sys.path[:0] = [sys.argv.pop(1)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
if sys.prefix == sys.base_prefix and not os.environ.get("PYTHONNOUSERSITE"):
    import site
    if os.path.isdir(site.getusersitepackages()):
        site.addsitedir(site.getusersitepackages())
from allo_lsp.runner.job import main
sys.exit(main(sys.argv[1:]))
"""


# An external tool under the same watchdog as a runner (runner/watchdog.py), run by the server's
# own interpreter from the runner's directory.
TOOL_BOOTSTRAP = """\
import sys
sys.path.insert(0, sys.argv[1])
from allo_lsp.runner.watchdog import run_command
run_command(int(sys.argv[2]), sys.argv[3:])
"""


def tool_argv(argv: list[str], watchdog_fd: int) -> list[str]:
    return [sys.executable, "-I", "-c", TOOL_BOOTSTRAP, runner_root(), str(watchdog_fd), *argv]


def runner_argv(python: str, root: str, result_fd: int, watchdog_fd: int, warm: bool = False) -> list[str]:
    """`root`: `runner_root()`. `-B`: no bytecode written, `-u`: unbuffered output (the variables
    that say so are ignored under `-I`), so that progress lines arrive as they are printed."""
    argv = [python, "-I", "-B", "-u", "-c", BOOTSTRAP, root, RESULT_FD, str(result_fd), WATCHDOG_FD, str(watchdog_fd)]
    return argv + ([WARM] if warm else [])


RUNNER_PACKAGES = ("runner", "protocol")  # all of ours that the runner imports
_root: str | None = None
_root_lock = threading.Lock()  # the first jobs may ask from several threads at once


def runner_root() -> str:
    """The directory a job imports our runner from: `allo_lsp/` with `runner/` and `protocol/`
    only, copied once per server (again if something removed it, a cleaner of old temporary
    files say), compiled for the server's own Python (read by an Allo environment of that
    version: `-B` writes none), read-only, removed when the server ends."""
    global _root
    with _root_lock:
        if _root is None or not os.path.isfile(os.path.join(_root, "allo_lsp", "runner", "job.py")):
            if _root is not None:
                remove_tree(_root)
            _root = _copy_runner()
        return _root


def _copy_runner() -> str:
    root = tempfile.mkdtemp(prefix=_owned_prefix(RUNNER_PREFIX))
    atexit.register(remove_tree, root)
    try:
        _fill(root)
    except BaseException:
        remove_tree(root)  # half a copy (a full disk, say): the next job tries again
        raise
    return root


def _fill(root: str) -> None:
    package = os.path.join(root, "allo_lsp")
    os.mkdir(package)
    with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8") as f:
        # A regular package: a namespace one would lose to an `allo_lsp` in the Allo environment.
        f.write('"""allo-lsp\'s runner, as a job imports it (jobs/isolation.py: runner_root)."""\n')
    ours = os.path.join(PACKAGE_ROOT, "allo_lsp")
    for name in RUNNER_PACKAGES:
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(os.path.join(ours, name), os.path.join(package, name), ignore=ignore)
    compileall.compile_dir(package, quiet=2)
    for directory, _, files in os.walk(root, topdown=False):
        for name in files:
            os.chmod(os.path.join(directory, name), 0o400)
        os.chmod(directory, 0o500)


def remove_runner_root() -> None:
    """For the server's last moment (`atexit` does not run when it leaves with `os._exit`)."""
    with _root_lock:
        if _root is not None:
            remove_tree(_root)


def remove_tree(path: str) -> None:
    """Remove a directory tree, read-only directories in it too."""
    for directory, _, _ in os.walk(path):
        try:
            os.chmod(directory, 0o700)
        except OSError:
            pass
    shutil.rmtree(path, ignore_errors=True)


PREFIX = "allo-lsp-job-"
KEPT_PREFIX = PREFIX + "kept-"  # kept on purpose (`allo-lsp synth` prints where): nobody's to remove
RUNNER_PREFIX = "allo-lsp-runner-"  # a server's `runner_root`
_OWNED = re.compile(f"(?:{re.escape(PREFIX)}|{re.escape(RUNNER_PREFIX)})" + r"(\d+)\.(\d+)-")


def start_time(pid: int) -> int | None:
    """A process's start time in clock ticks since boot (Linux): with the pid, it names one
    process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat_line = f.read()
        return int(stat_line[stat_line.rindex(b")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _owned_prefix(prefix: str = PREFIX) -> str:
    return f"{prefix}{os.getpid()}.{start_time(os.getpid()) or 0}-"


def job_dir(kept: bool = False) -> str:
    """A new private (0700) job directory, named after this server unless it is to be kept."""
    if kept:
        return tempfile.mkdtemp(prefix=KEPT_PREFIX)
    return tempfile.mkdtemp(prefix=_owned_prefix())


def _alive(pid: int, started: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it is not ours to judge
    now = start_time(pid)
    return now is None or started == 0 or now == started


def remove_orphaned_dirs(root: str | None = None) -> list[str]:
    """Remove the job directories, in `root` (the temporary directory), of servers of this user
    that are gone. Another user's, and those of a live server, are left alone."""
    root = root or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        found = _OWNED.match(entry.name)
        if found is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        if _alive(int(found.group(1)), int(found.group(2))):
            continue
        remove_tree(entry.path)
        removed.append(entry.path)
    return removed
