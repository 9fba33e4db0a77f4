"""The workspace's storage (its cluster jobs, its kept synthesis reports): private, and read as
hostile.

Another user on a cluster's login host must not read job paths or reports: directories are made
0700 and files 0600 whatever the umask (`os.open` with the mode; a umask only takes bits away).
A stored file may have been written by anything (an older server, a full disk, a person): it is
read bounded, regular files only (`regular_files.read_regular`), without Python's recursion limit
mattering, and a file that cannot be read is set aside (`<name>.unreadable`), logged, never fatal;
the caller checks the shape of what it got and sets it aside likewise.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from contextlib import contextmanager

from allo_lsp.regular_files import read_regular

log = logging.getLogger(__name__)
DIR_MODE, FILE_MODE = 0o700, 0o600


def make_dir(path: str) -> None:
    """`path` and each missing directory above it, made 0700 (existing ones are left as they are)."""
    missing = []
    while path and not os.path.isdir(path):
        missing.append(path)
        path = os.path.dirname(path)
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            pass  # another server made it meanwhile


def read_json(path: str, limit: int):
    """The JSON value in `path`; None when there is no such file, or when it cannot be read (too
    large, not a regular file, not JSON, nested past Python's limits): then it is set aside."""
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        return None
    except OSError as exc:
        set_aside(path, str(exc))
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError, MemoryError) as exc:
        set_aside(path, f"not JSON that can be read ({type(exc).__name__}: {str(exc)[:200]})")
        return None


def set_aside(path: str, why: str) -> None:
    """An unreadable stored file renamed out of the way (kept to look at), so that the next write
    starts afresh instead of failing on it again."""
    log.warning("%s is unreadable (%s): set aside as %s.unreadable", path, why, os.path.basename(path))
    try:
        os.replace(path, f"{path}.unreadable")
    except OSError as exc:
        log.warning("%s could not be set aside: %s", path, exc)


def write_json(path: str, data) -> None:
    """Written whole or not at all (a reader never sees half a file, whoever dies when), 0600."""
    partial = f"{path}.{os.getpid()}.partial"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # a partial file left by a killed writer may have another mode
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    except BaseException:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise


@contextmanager
def locked(path: str):
    """An advisory lock of `path` (on `path`.lock) for a read-modify-write of the file by
    several servers of one workspace; its directory made (0700) if need be."""
    make_dir(os.path.dirname(path))
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    with os.fdopen(fd, "r+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
