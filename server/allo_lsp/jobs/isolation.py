"""How the interpreters we start are isolated, and whose job directories are whose.

Every interpreter we start runs with `-I`: neither its working directory nor a script's directory
is on `sys.path` (a `numpy.py` planted in the temporary directory, or an `allo_lsp/` in the
workspace, would otherwise run), and `PYTHON*` variables and the user site are ignored. The
runner still needs what the user's environment puts on the path (Allo installed through
`PYTHONPATH`, our package beside it): `BOOTSTRAP` adds the absolute `PYTHONPATH` entries and, for
a plain (non-venv) interpreter as Python would, the user site, then runs the runner. The design's
own directory is put on `sys.path` by the runner when it loads the design.

A job directory is named after the server that made it (pid and start time): a new server
removes those of servers that are gone (`remove_orphaned_dirs`), since a server killed with
SIGKILL cannot remove its own.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile

from allo_lsp.jobs.environment import PACKAGE_ROOT
from allo_lsp.protocol.pipes import RESULT_FD, WARM, WATCHDOG_FD

BOOTSTRAP = """\
import os, sys
sys.path[:0] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
if sys.prefix == sys.base_prefix and not os.environ.get("PYTHONNOUSERSITE"):
    import site
    if os.path.isdir(site.getusersitepackages()):
        site.addsitedir(site.getusersitepackages())
from allo_lsp.runner.job import main
sys.exit(main(sys.argv[1:]))
"""


# An external tool under the same watchdog as a runner (runner/watchdog.py), run by the server's
# own interpreter: our package is put on the path by where it is, not by PYTHONPATH.
TOOL_BOOTSTRAP = """\
import sys
sys.path.insert(0, sys.argv[1])
from allo_lsp.runner.watchdog import run_command
run_command(int(sys.argv[2]), sys.argv[3:])
"""


def tool_argv(argv: list[str], watchdog_fd: int) -> list[str]:
    return [sys.executable, "-I", "-c", TOOL_BOOTSTRAP, PACKAGE_ROOT, str(watchdog_fd), *argv]


def runner_argv(python: str, result_fd: int, watchdog_fd: int, warm: bool = False) -> list[str]:
    """`-u`: unbuffered output (PYTHONUNBUFFERED is one of the variables `-I` ignores), so that
    progress lines arrive as they are printed."""
    argv = [python, "-I", "-u", "-c", BOOTSTRAP, RESULT_FD, str(result_fd), WATCHDOG_FD, str(watchdog_fd)]
    return argv + ([WARM] if warm else [])


PREFIX = "allo-lsp-job-"
KEPT_PREFIX = PREFIX + "kept-"  # kept on purpose (`allo-lsp synth` prints where): nobody's to remove
_OWNED = re.compile(re.escape(PREFIX) + r"(\d+)\.(\d+)-")


def start_time(pid: int) -> int | None:
    """A process's start time in clock ticks since boot (Linux): with the pid, it names one
    process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat_line = f.read()
        return int(stat_line[stat_line.rindex(b")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def job_dir(kept: bool = False) -> str:
    """A new private (0700) job directory, named after this server unless it is to be kept."""
    if kept:
        return tempfile.mkdtemp(prefix=KEPT_PREFIX)
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}.{start_time(os.getpid()) or 0}-")


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
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(entry.path)
    return removed
