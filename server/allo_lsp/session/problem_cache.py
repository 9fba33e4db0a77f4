"""A document's problems kept across restarts (issue 29): reopening a workspace shows them at once,
before its first analysis has finished, which then gives the same problems.

An entry is the problems of one first analysis, keyed by everything that analysis read: the text,
the options (settings and the project's `[tool.allo-lsp]`) and the server's own code (`STAMP`: the
size and modification time of each of its modules, so that a checkout with other code never reads
another's entries, whatever its version number says). It is kept in the editor's storage for the
workspace only (VS Code's `storageUri`; an editor that gives none keeps nothing), as hostile files:
read bounded and shape-checked, an unreadable one set aside (`jobs/storage.py`), written whole.
At most `MAX_ENTRIES` are kept, the oldest removed first.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from allo_lsp.analysis import Options, Problem, Severity
from allo_lsp.analysis.model import Range

MAX_ENTRIES = 256
MAX_ENTRY_BYTES = 4 * 1024 * 1024
MAX_PROBLEMS = 10_000
FORMAT = 1  # of an entry's JSON


@functools.lru_cache(maxsize=1)
def stamp() -> str:
    """The server's code as it is on disk: its modules' paths, sizes and modification times."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        try:
            info = path.stat()
        except OSError:
            continue
        digest.update(f"{path.relative_to(root)}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def key(text: str, options: Options) -> str:
    read = {
        "format": FORMAT,
        "server": stamp(),
        "allo_build": options.allo_build,
        "max_chars": options.max_chars,
        "omp_threads": options.omp_threads,
        "ignored": sorted(options.selection.ignored),
        "severities": [[code, int(severity)] for code, severity in options.selection.severities],
    }
    digest = hashlib.sha256(json.dumps(read, sort_keys=True).encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _encoded(p: Problem) -> list:
    r = p.range
    return [p.code, int(p.severity), r.start.line, r.start.column, r.end.line, r.end.column, p.message, p.data]


def _decoded(item: object) -> Problem | None:
    if not (isinstance(item, list) and len(item) == 8):
        return None
    code, severity, *bounds, message, data = item
    if not (
        isinstance(code, str)
        and severity in {int(s) for s in Severity}
        and all(type(n) is int and n >= 0 for n in bounds)
        and isinstance(message, str)
        and isinstance(data, dict)
    ):
        return None
    return Problem(code, Severity(severity), Range.of(*bounds), message, data)


class ProblemCache:
    """Entries under `directory`/problems (None: nothing is kept)."""

    def __init__(self, directory: str | None) -> None:
        self.directory = os.path.join(directory, "problems") if directory else None

    def _path(self, text: str, options: Options) -> str | None:
        return os.path.join(self.directory, f"{key(text, options)}.json") if self.directory else None

    def get(self, text: str, options: Options) -> list[Problem] | None:
        from allo_lsp.jobs.storage import read_json, set_aside  # not before the first diagnostics

        path = self._path(text, options)
        found = read_json(path, MAX_ENTRY_BYTES) if path else None
        if found is None:
            return None
        items = found.get("problems") if isinstance(found, dict) and found.get("format") == FORMAT else None
        problems = [_decoded(i) for i in items] if isinstance(items, list) and len(items) <= MAX_PROBLEMS else None
        if problems is None or None in problems:
            set_aside(path, "not a list of problems")  # type: ignore[arg-type]
            return None
        try:
            os.utime(path)  # used: the last to be pruned
        except OSError:
            pass
        return problems  # type: ignore[return-value]

    def put(self, text: str, options: Options, problems: list[Problem]) -> None:
        from allo_lsp.jobs.storage import make_dir, write_json

        path = self._path(text, options)
        if path is None or len(problems) > MAX_PROBLEMS:
            return
        try:
            entry = json.dumps({"format": FORMAT, "problems": [_encoded(p) for p in problems]})
        except (TypeError, ValueError):  # a problem's data that is not JSON: not kept
            return
        if len(entry) > MAX_ENTRY_BYTES:
            return
        try:
            make_dir(self.directory)  # type: ignore[arg-type]
            write_json(path, json.loads(entry))
            self._prune()
        except OSError:
            pass  # a full or read-only disk: the cache is an optimisation, the analysis runs anyway

    def _prune(self) -> None:
        entries = []
        with os.scandir(self.directory) as found:  # type: ignore[arg-type]
            for entry in found:
                if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                    entries.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.path))
        for _, path in sorted(entries)[: max(0, len(entries) - MAX_ENTRIES)]:
            try:
                os.unlink(path)
            except OSError:
                pass
