"""The user's files, read and written without surprises: only regular files, bounded in size, and
replaced atomically.

Every path that reads a file a workspace holds (designs, `pyproject.toml`, `.gitignore`, reports)
goes through `read_regular`: a FIFO named `x.py` would block `open()` until a writer comes, and a
link to `/dev/zero` never ends. Every path that rewrites a user's file goes through
`replace_atomically`: a full disk or a killed process leaves the old file whole, and an edit saved
meanwhile is never overwritten.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_CHUNK = 1 << 16


class Refused(OSError):
    """A file that is not read or written, with the reason in words (`str(exc)`)."""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of `path` if it is (or links to) a regular file of at most `limit` bytes.

    Raises `Refused` for anything else (FIFO, device, socket, directory, too large) and `OSError`
    when it cannot be opened. The size is checked on the opened file and again while reading:
    `/proc` files say 0 and a growing file says less than it gives."""
    # O_NONBLOCK: a FIFO opens at once instead of waiting for a writer; fstat then refuses it.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{path}: {_kind(info.st_mode)}, not read")
        if info.st_size > limit:
            raise Refused(f"{path}: {info.st_size} bytes, more than the {limit} read")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Refused(f"{path}: more than the {limit} bytes read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_regular(path: str | os.PathLike) -> bool:
    """Whether `path` is (or links to) a regular file; false when it cannot be looked at."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def inside(path: str | os.PathLike, roots: list[Path]) -> bool:
    """Whether `path`'s real path (links followed) is one of `roots` or below one (real paths too)."""
    real = Path(os.path.realpath(path))
    return any(real == root or real.is_relative_to(root) for root in (Path(os.path.realpath(r)) for r in roots))


def replace_atomically(path: str | os.PathLike, data: bytes, expected: bytes | None = None) -> None:
    """Replaces the regular file `path` with `data`, whole or not at all, keeping its mode.

    With `expected`, the file must still hold exactly those bytes (what was read before the
    change): otherwise `Refused`, and the file is left as it is. The new content is written to a
    temporary file beside it, synced and renamed over it; on any error the temporary file is
    removed and the original is untouched."""
    import tempfile  # only where a file is written: a plain `check` starts 20 ms sooner without it

    path = os.fspath(path)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{path}: {_kind(info.st_mode)}, not written")
    directory, name = os.path.split(os.path.abspath(path))
    fd, partial = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(partial, stat.S_IMODE(info.st_mode))
        if expected is not None and read_regular(path, max(len(expected), 1) * 2 + _CHUNK) != expected:
            raise Refused(f"{path}: changed since it was read, not written")
        os.replace(partial, path)
    except BaseException:
        try:
            os.unlink(partial)
        except FileNotFoundError:
            pass
        raise
