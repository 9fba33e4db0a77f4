"""The workspace's Allo files that the editor does not show, analysed from disk in the background:
the Problems panel lists every design of the workspace, not only the open ones.

Only a file's problems are kept, with what of its lines their columns need to be converted to the
client's (a file's parse is megabytes, and so are 600 designs' texts: 1.26 GB when they were
kept). A file is read only while it is a regular file of at most `MAX_FILE_BYTES`, at every
analysis (one swapped for a link to `/dev/zero` after the scan is refused, not read for ever). A
file is analysed again when its size or modification time changes; the folders are scanned again
when told (a watched file was created or deleted) or after `RESCAN_S`.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from allo_lsp import host
from allo_lsp.analysis import Options, Problem, analyze, lsp_newlines
from allo_lsp.regular_files import read_regular
from allo_lsp.session.scheduler import AnalysisQueue
from allo_lsp.session.workspace_files import MAX_FILE_BYTES, allo_files, folder_paths  # noqa: F401 - lsp/ reads it here

# (URI, text, problems) -> (its result id, the client's report of them)
Report = Callable[[str, str, list[Problem]], tuple[str, object]]

_PR_SET_PDEATHSIG = 1  # prctl(2)
RESCAN_S = 30.0  # a file created outside the editor appears within this long without a watcher


@dataclass(frozen=True)
class FileReport:
    stamp: tuple[int, int]  # size and modification time when read
    problems: list[Problem]
    lines: dict[int, str]  # the problems' lines, each up to the last column a problem has there

    @staticmethod
    def of(stamp: tuple[int, int], text: str, problems: list[Problem]) -> FileReport:
        lines, ends = text.split("\n"), {}
        for p in problems:
            for position in (p.range.start, p.range.end):
                ends[position.line] = max(ends.get(position.line, 0), position.column)
        return FileReport(stamp, problems, {n: lines[n][:end] for n, end in ends.items() if n < len(lines)})

    def text(self) -> str:
        """A text with the problems' lines where they were and the others empty: their columns
        are the file's (made while its report is, not kept)."""
        return "\n".join(self.lines.get(n, "") for n in range(max(self.lines, default=0) + 1))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def read_and_analyse(path: Path, options: Options) -> FileReport | None:
    """One file's report, or None if it cannot be read (in the background process)."""
    stamp = _stamp(path)
    try:
        if stamp is None:
            raise OSError("gone")
        text = lsp_newlines(read_regular(path, MAX_FILE_BYTES).decode("utf-8", errors="replace"))
    except OSError:  # gone, or no longer a regular file of at most MAX_FILE_BYTES
        return None
    with host.analysing():  # the process pool's worker: its own process, tuned as the server's
        return FileReport.of(stamp, text, analyze(text, options).problems)


def background_start() -> None:
    """The background process's start: below the editor's own work on a shared machine, and gone
    with the server however it ends (Linux's parent-death signal: a killed server's pool is not
    told)."""
    os.nice(10)
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


EXCLUDES = ("files.exclude", "search.exclude")  # the editor's settings of what the workspace leaves out


def excludes_on(values: list) -> list[str]:
    """The exclude globs that are on in the editor's `EXCLUDES` settings (`{"**/node_modules": true}`)."""
    return [glob for value in values if isinstance(value, dict) for glob, on in value.items() if on is True]


class WorkspaceReports:
    def __init__(self, excludes: list[str]) -> None:
        self.excludes = excludes  # the editor's exclude globs that are on
        self.reports: dict[str, FileReport] = {}  # by URI
        self.gone: set[str] = set()  # files reported before and deleted since: reported empty once
        self._paths: dict[str, Path] = {}
        self._stamps_due = False
        self._made: dict[str, tuple] = {}  # URI -> (the report it was made of, result id, the client's report)
        self._scanned_at: float | None = None

    def due(self) -> bool:
        return self._scanned_at is None or time.monotonic() - self._scanned_at > RESCAN_S

    def rescan_soon(self) -> None:
        self._scanned_at = None

    def changed_on_disk(self) -> None:
        """A watched file changed: the files' stamps are read again at the next look."""
        self._stamps_due = True

    def watched(self, changes: list[tuple[str, bool]]) -> None:
        """Watched files changed ((URI, whether changed rather than created or deleted) each):
        their stamps again, and the folders when a file came or went or is not one of ours (a
        .gitignore)."""
        if any(not changed or not self.knows(uri) for uri, changed in changes):
            self.rescan_soon()
        self.changed_on_disk()

    def scan(self, folders: list[Path]) -> None:
        """The folders' Allo files now (blocking: file system walks; run it off the event loop)."""
        found = {path.as_uri(): path for path in allo_files(folders, self.excludes)}
        for uri in set(self._paths) - set(found):
            if self.reports.pop(uri, None) is not None:
                self.gone.add(uri)
        self._paths = found
        self.gone -= set(found)
        self._scanned_at = time.monotonic()

    def stale(self, skip: set[str]) -> list[str]:
        """The files to analyse: new, or changed on disk since they were read (`skip`: open ones)."""
        out = []
        for uri, path in self._paths.items():
            report = self.reports.get(uri)
            if uri not in skip and (report is None or report.stamp != _stamp(path)):
                out.append(uri)
        return out

    def knows(self, uri: str) -> bool:
        return uri in self._paths

    @functools.cached_property
    def background(self) -> ProcessPoolExecutor:
        """The process the files are analysed in (spawned: the server has threads)."""
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=background_start)

    def close(self) -> None:
        if "background" in self.__dict__:  # started
            self.background.shutdown(wait=False, cancel_futures=True)

    async def analyse(self, uri: str, options: Options) -> None:
        """Read and analyse one file in the background (a process of its own, at a low priority,
        so that requests on the open files do not wait for the workspace's). A file that cannot
        be read is dropped until the next scan."""
        path, found = self._paths.get(uri), None
        if path is not None:
            found = await asyncio.get_running_loop().run_in_executor(self.background, read_and_analyse, path, options)
        if found is not None:
            self.reports[uri] = found
            return
        self._paths.pop(uri, None)
        if self.reports.pop(uri, None) is not None:
            self.gone.add(uri)

    async def pull(
        self,
        queue: AnalysisQueue,
        folders: list[Path],
        open_uris: Callable[[], set[str]],
        known: dict[str, str],
        report: Report,
        stream: Callable[[list], None] | None,
        hold_s: float,
    ) -> list:
        """The reports the client does not have yet (`known`: URI -> result id, updated), each as
        soon as its file is analysed (through `stream`, when the client takes partial results),
        the rest returned once every file is; with nothing new, held for news for `hold_s` (the
        client asks again when answered). The files are analysed by `queue`, in the background."""
        out, streamed, deadline = [], False, time.monotonic() + hold_s
        pending: dict[str, FileReport | None] | None = None  # to analyse, with the report each had then
        while True:
            if pending is None or self.due() or self._stamps_due:  # the files on disk again: a scan, their stamps
                if self.due():
                    await asyncio.to_thread(self.scan, folders)
                self._stamps_due = False
                pending = {uri: self.reports.get(uri) for uri in self.stale(open_uris())}
                queue.background(pending)
            else:  # what the queue analysed since: not every file's stamp again after each
                pending = {u: r for u, r in pending.items() if u in self._paths and self.reports.get(u) is r}
            fresh = self._fresh(open_uris(), known, report)
            if fresh and stream is not None:
                stream(fresh)
                streamed = True
            else:
                out += fresh
            left = deadline - time.monotonic()
            if (not pending and (out or streamed)) or left <= 0:
                self.gone.clear()
                return out
            await queue.next_news(left)  # a file analysed, a watched file changed

    def _fresh(self, open_uris: set[str], known: dict[str, str], report: Report) -> list:
        """The client's reports of the files whose diagnostics it does not have; each report is
        made once per analysis of its file (the pull looks again after every file analysed)."""
        out = []
        for uri, found in [*self.reports.items(), *((uri, None) for uri in self.gone)]:
            if uri in open_uris:  # the editor's text is an open file's truth: pulled as a document
                continue
            made = self._made.get(uri)
            if made is None or made[0] is not found:
                text, problems = (found.text(), found.problems) if found is not None else ("", [])
                made = self._made[uri] = (found, *report(uri, text, problems))
            if known.get(uri) != made[1]:
                known[uri] = made[1]
                out.append(made[2])
        return out
