"""The Allo designs of the workspace folders: the files workspace diagnostics analyse.

A file is a design when it is a `.py` file of at most `MAX_FILE_BYTES` whose first
`HEAD_BYTES` import allo (`import allo`, `import allo.dataflow as df`, `from allo.ir.types
import int32`, ...): a cheap test on bytes that reads no further than the import and runs
nothing. A path is excluded, and a directory not entered, when any of these holds, relative to
its workspace folder:
- its name is `.git`, `__pycache__`, `site-packages` or `dist-packages`;
- it lies in a Python environment: a directory holding `pyvenv.cfg` (venv) or `conda-meta`
  (conda), found by that marker whatever the directory is called;
- it matches one of the editor's exclude globs (`files.exclude`, `search.exclude`), VS Code's
  glob syntax (`*`, `?`, `**`, `{a,b}`, `[...]`) on the path relative to the folder, so
  `**/node_modules` is any `node_modules` and `build` only the folder's own;
- a `.gitignore` of the folder or of a directory below it ignores it, with git's semantics
  (patterns relative to the file's directory, the last matching line wins, a deeper file over a
  shallower one, `!` re-includes unless a parent directory is ignored); a repository's
  `.git/info/exclude` counts as a `.gitignore` below the repository's own. As VS Code's search
  does by default (`search.useParentIgnoreFiles`), `.gitignore` files above the folder do not
  count: a dotfiles repository that ignores `*` in the home directory hides no project;
- it lies under an excluded directory.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

from allo_lsp.regular_files import read_regular
from allo_lsp.session.globs import Patterns, editor_glob, gitignore_line

MAX_FILE_BYTES = 2 * 1024 * 1024  # larger is generated code or data, not a design to keep in Problems
HEAD_BYTES = 64 * 1024  # the import of allo is further down than this in no design worth scanning for
LIMIT = 5000
SKIPPED_NAMES = frozenset({".git", "__pycache__", "site-packages", "dist-packages"})
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")

# An import statement that names allo or a submodule of it, at the start of a line (any indentation:
# `try:` blocks) or after a `;`; `allo_lsp` and `alloy` are other packages. A UTF-8 BOM may open the file.
_IMPORTS_ALLO = re.compile(
    rb"(?:^|;)(?:\xef\xbb\xbf)?[ \t]*"
    rb"(?:from[ \t]+allo(?:[ \t]*\.[ \t]*\w+)*[ \t]+import\b"
    rb"|import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*allo(?!\w))",
    re.MULTILINE,
)
_CHUNK = 8 * 1024


class AlloFiles(Iterator[Path]):
    """The iterator `allo_files` returns; after it, `examined` says how many `.py` files it opened
    and `truncated` whether it stopped at the limit with files left to examine."""

    def __init__(self, folders: Iterable[Path], excludes: Iterable[str], limit: int):
        self.examined = 0
        self.truncated = False
        self._files = self._scan([_absolute(f) for f in folders], _Globs(excludes), limit)

    def __next__(self) -> Path:
        return next(self._files)

    def _scan(self, folders: list[Path], globs: _Globs, limit: int) -> Iterator[Path]:
        yielded: set[tuple[int, int]] = set()
        for folder in folders:
            for entry in _candidates(folder, globs):
                if self.examined >= limit:
                    self.truncated = True
                    return
                self.examined += 1
                try:
                    info = entry.stat()
                except OSError:
                    continue
                identity = (info.st_dev, info.st_ino)
                # A file reached twice (a symlink to it, nested workspace folders) is one design.
                if identity not in yielded and _is_design(Path(entry.path), info):
                    yielded.add(identity)
                    yield Path(entry.path)


def allo_files(folders: Iterable[Path], excludes: Iterable[str] = (), limit: int = LIMIT) -> AlloFiles:
    """The Allo designs under `folders` (workspace folders), lazily, in this order: the folders as
    given, each walked depth first with the entries of a directory by name, so one folder's files
    come sorted as paths (`sorted()`). Paths are absolute and lexical: a file reached through a
    symlinked directory is given at its path through the link; symlinks are followed, a directory
    already entered from this folder (a symlink loop) is not entered again, and a file already
    given (by another path or folder) is not given again. `excludes`: the editor's exclude globs
    whose value is `true` (`files.exclude` and `search.exclude` merged; one whose value is a
    `when` clause names a sibling file, which this does not read), the same for every folder.
    A directory that cannot be read, a broken symlink or a file that vanishes is skipped; nothing
    raises on the workspace's contents. At most `limit` `.py` files that the exclusions leave are
    examined (their first bytes read); then the iteration ends, with `truncated` set. Stopping the
    iteration early (cancellation) leaves nothing open."""
    return AlloFiles(folders, excludes, limit)


def folder_paths(uris: list[str]) -> list[Path]:
    """The workspace folders that are local directories."""
    out = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme == "file" and os.path.isdir(unquote(parsed.path)):
            out.append(Path(unquote(parsed.path)))
    return out


def is_excluded(path: Path, folders: Iterable[Path], excludes: Iterable[str] = ()) -> bool:
    """Whether `allo_files(folders, excludes)` leaves `path` out by the rules of its place alone
    (for a file-watch event; its content is `is_design`'s): true when no folder holds it, else
    when every folder that holds it excludes it or a directory above it. The `.gitignore` files on
    the way are read (cached while their size and mtime stay). A changed `.gitignore` itself can
    change what the other files are: such an event calls for `allo_files` again."""
    target = _absolute(path)
    globs = _Globs(excludes)
    return all(
        _excluded_under(target, folder, globs) for folder in map(_absolute, folders) if target.is_relative_to(folder)
    )


def is_design(path: Path) -> bool:
    """Whether `path` is a regular `.py` file of at most `MAX_FILE_BYTES` whose first
    `HEAD_BYTES` import allo. False when it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return False
    return path.name.endswith(".py") and _is_design(path, info)


def _is_design(path: Path, info: os.stat_result) -> bool:
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        return False
    try:
        with _opened_regular(path) as file:
            head, searched = b"", 0  # the lines before `searched` were searched whole
            while len(head) < HEAD_BYTES:
                chunk = file.read(min(_CHUNK, HEAD_BYTES - len(head)))
                head += chunk
                # Only whole lines, but at the end: `import allo` cut from `import allocator` is no import.
                complete = head.rfind(b"\n") + 1 if chunk else len(head)
                if _IMPORTS_ALLO.search(head, searched, complete):
                    return True
                if not chunk:
                    return False
                searched = complete
            return False
    except OSError:
        return False


def _opened_regular(path: Path):
    """`path` opened to read its first bytes, if it is still a regular file: one swapped for a FIFO
    since its stat would block `open()` until a writer came."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path}: not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _absolute(path: Path) -> Path:
    # Lexical, as the editor names files: resolving symlinks would give paths the client never opened.
    return Path(os.path.abspath(path))


class _Globs:
    """VS Code's exclude globs, over a path relative to its folder (`globs.py`: linear time)."""

    def __init__(self, patterns: Iterable[str]):
        pieces = [editor_glob(p.strip().strip("/")) for p in patterns if p.strip().strip("/")]
        self._patterns = Patterns([p for p in pieces if p is not None])

    def match(self, relative: str) -> bool:
        return self._patterns.any(relative)


@dataclass(frozen=True)
class _IgnoreFile:
    """One ignore file's lines as git applies them: to a file, those that do not end in `/`; to a
    directory, all (`build/` matches the directory `build` as `build` does). Each tells whether
    it ignores (a `!` line takes back)."""

    files: Patterns
    file_ignores: tuple[bool, ...]
    directories: Patterns
    directory_ignores: tuple[bool, ...]

    def verdict(self, relative: str, is_dir: bool) -> bool | None:
        """Whether the last line that matches `relative` itself ignores it (None: no line does)."""
        patterns, ignores = (self.directories, self.directory_ignores) if is_dir else (self.files, self.file_ignores)
        last = patterns.last(relative)
        return ignores[last] if last >= 0 else None


@dataclass(frozen=True)
class _Ignores:
    """The ignore files that apply in a directory, the deepest first: `base` is the directory
    (relative to the folder) whose `file` it is."""

    base: str
    file: _IgnoreFile
    parent: _Ignores | None

    def ignores(self, relative: str, is_dir: bool) -> bool:
        ignores: _Ignores | None = self
        while ignores is not None:
            verdict = ignores.file.verdict(relative[len(ignores.base) + 1 :] if ignores.base else relative, is_dir)
            if verdict is not None:  # a deeper file's match, a `!` one too, decides
                return verdict
            ignores = ignores.parent
        return False


def _ignored(ignores: _Ignores | None, relative: str, is_dir: bool) -> bool:
    return ignores is not None and ignores.ignores(relative, is_dir)


def _with_ignore_files(
    directory: Path, relative: str, ignores: _Ignores | None, names: set[str] | None
) -> _Ignores | None:
    """`ignores` and those `directory` adds; `names`: its entries, when they are known."""
    for name in (".git/info/exclude", ".gitignore"):  # the later is the deeper: it decides first
        if names is None or name.split("/")[0] in names:
            file = _ignore_file(directory / name)
            if file is not None:
                ignores = _Ignores(relative, file, ignores)
    return ignores


def _ignore_file(path: Path) -> _IgnoreFile | None:
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        return None
    return _parsed_ignore_file(str(path), info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=1024)
def _parsed_ignore_file(path: str, _mtime_ns: int, _size: int) -> _IgnoreFile | None:
    try:  # swapped for a FIFO or a link to /dev/zero since its stat: refused, not waited on
        text = read_regular(path, MAX_FILE_BYTES).decode("utf-8", errors="surrogateescape")
    except OSError:
        return None
    lines = [line for line in map(gitignore_line, text.splitlines()) if line is not None]
    if not lines:
        return None
    files = [line for line in lines if not line.directories_only]
    return _IgnoreFile(
        Patterns([line.pieces for line in files]),
        tuple(line.ignores for line in files),
        Patterns([line.pieces for line in lines]),
        tuple(line.ignores for line in lines),
    )


def _is_environment(names: Iterable[str]) -> bool:
    return any(marker in names for marker in ENVIRONMENT_MARKERS)


@dataclass
class _Directory:
    relative: str
    ignores: _Ignores | None
    entries: Iterator[os.DirEntry[str]]


def _entered(path: Path, relative: str, ignores: _Ignores | None) -> _Directory | None:
    try:
        with os.scandir(path) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:  # unreadable, gone, or not a directory after all
        return None
    names = {e.name for e in entries}
    if _is_environment(names):
        return None
    return _Directory(relative, _with_ignore_files(path, relative, ignores, names), iter(entries))


def _candidates(folder: Path, globs: _Globs) -> Iterator[os.DirEntry[str]]:
    """The `.py` files under `folder` that the rules of their place leave, in path order."""
    try:
        info = folder.stat()
    except OSError:
        return
    root = _entered(folder, "", None)
    if root is None:
        return
    entered = {(info.st_dev, info.st_ino)}
    stack = [root]
    while stack:
        directory = stack[-1]
        entry = next(directory.entries, None)
        if entry is None:
            stack.pop()
            continue
        if entry.name in SKIPPED_NAMES:
            continue
        relative = f"{directory.relative}/{entry.name}" if directory.relative else entry.name
        is_dir = _is_dir(entry)
        if globs.match(relative) or _ignored(directory.ignores, relative, is_dir):
            continue
        if is_dir:
            try:
                target = entry.stat()
            except OSError:
                continue
            if (target.st_dev, target.st_ino) not in entered:
                entered.add((target.st_dev, target.st_ino))
                below = _entered(Path(entry.path), relative, directory.ignores)
                if below is not None:
                    stack.append(below)
        elif entry.name.endswith(".py"):
            yield entry


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _excluded_under(path: Path, folder: Path, globs: _Globs) -> bool:
    parts = path.relative_to(folder).parts
    directory, ignores = folder, None
    for depth, name in enumerate(parts):
        # Looked up by name, not listed: the directory may be a node_modules of 10,000 entries.
        if any(os.path.lexists(directory / marker) for marker in ENVIRONMENT_MARKERS):
            return True
        ignores = _with_ignore_files(directory, "/".join(parts[:depth]), ignores, None)
        relative = "/".join(parts[: depth + 1])
        is_dir = depth < len(parts) - 1 or (directory / name).is_dir()
        if name in SKIPPED_NAMES or globs.match(relative) or _ignored(ignores, relative, is_dir):
            return True
        directory = directory / name
    return False
