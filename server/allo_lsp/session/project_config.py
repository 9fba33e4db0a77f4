"""A file's project configuration: the `[tool.allo-lsp]` of the nearest `pyproject.toml` that has
one, from the file's directory upward (a `pyproject.toml` without the table is passed over, as
Ruff passes over one without `[tool.ruff]`). `allo-lsp check` and the server read it alike.

The search stops at the first directory that holds `.git` (a repository's root) and, in the
server, at the workspace folder that holds the file: a `pyproject.toml` above them is another
project's, and may be anything (a FIFO, a link to `/dev/zero`). Only a regular file of at most
`MAX_BYTES` is read (`regular_files.read_regular`); anything else is passed over as a missing one.

A `pyproject.toml` is read again when its size or modification time changes, so an edited one
holds from the next analysis on; the server also re-analyses the open documents when the client
reports the change (`workspace/didChangeWatchedFiles`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from allo_lsp.analysis import Options, Problem
from allo_lsp.analysis.config import TABLE, Config, parse_config
from allo_lsp.regular_files import read_regular
from allo_lsp.session.workspace_files import folder_paths

NAME = "pyproject.toml"
MAX_BYTES = 4 * 1024 * 1024  # a pyproject.toml of 20,000 codes is 200 KB
WATCHED = f"**/{NAME}"  # the glob the server asks the client to watch


def is_config(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] == NAME


@dataclass(frozen=True)
class ProjectConfig:
    path: Path | None  # the pyproject.toml; None: none holds a [tool.allo-lsp]
    text: str = ""
    config: Config = Config()
    problems: tuple[Problem, ...] = ()

    def options(self, file: Path, base: Options, build_chosen: bool) -> Options:
        """`base` with this configuration's selection for `file`, and its `allo-build` unless
        the user chose one (an editor setting or `--allo-build` other than `auto`)."""
        relative = file.name
        if self.path is not None:
            try:
                relative = Path(os.path.abspath(file)).relative_to(self.path.parent).as_posix()
            except ValueError:
                pass
        # `auto` in the file says as little as no key: what the probe found (`base`) stands.
        unset = self.config.allo_build in ("", "auto")
        build = base.allo_build if build_chosen or unset else self.config.allo_build
        return replace(base, allo_build=build, selection=self.config.selection_for(relative))


NONE = ProjectConfig(None)


class ProjectConfigs:
    """The configurations read so far, by pyproject.toml, each with what it was read from. It
    reads files: the server calls it off the event loop, from any thread."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[tuple[int, int], ProjectConfig | None]] = {}
        self._reported: dict[Path, tuple[Problem, ...]] = {}
        self._lock = threading.Lock()

    def for_file(self, file: Path | str, folders: Iterable[str] = ()) -> ProjectConfig:
        """The configuration of `file`, searched from its directory up to the first that holds
        `.git`, or is one of `folders` (the workspace folders' URIs), or the file system's root."""
        start = Path(os.path.abspath(file)).parent
        roots = {Path(os.path.abspath(f)) for f in folder_paths(list(folders))}
        with self._lock:
            for directory in (start, *start.parents):
                found = self._read_config(directory / NAME)
                if found is not None:
                    return found
                if directory in roots or os.path.lexists(directory / ".git"):
                    break
        return NONE

    def options(
        self, file: Path | str | None, base: Options, build_chosen: bool, folders: Iterable[str] = ()
    ) -> Options:
        if not file:
            return base
        return self.for_file(file, folders).options(Path(file), base, build_chosen)

    def _read_config(self, path: Path) -> ProjectConfig | None:
        try:
            stat = path.stat()
        except OSError:
            if path in self._read:  # removed: its problems are withdrawn (`unreported`)
                self._read[path] = ((-1, -1), None)
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        seen = self._read.get(path)
        if seen is not None and seen[0] == key:
            return seen[1]
        try:  # a FIFO would block, /dev/zero never end: neither is read
            text = read_regular(path, MAX_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return None
        found = None
        if f"tool.{TABLE}" in text or f'tool."{TABLE}"' in text:
            config, problems = parse_config(text)
            if config is not None or problems:
                found = ProjectConfig(path, text, config or Config(), tuple(problems))
        self._read[path] = (key, found)
        return found

    def unreported(self) -> list[ProjectConfig]:
        """The configurations whose problems changed since last asked (fixed ones too, with no
        problems): the server publishes them on the pyproject.toml."""
        changed = []
        with self._lock:
            read = list(self._read.items())
        for path, (_, found) in read:
            problems = found.problems if found is not None else ()
            if self._reported.get(path, ()) != problems:
                self._reported[path] = problems
                changed.append(found if found is not None else ProjectConfig(path))
        return changed
