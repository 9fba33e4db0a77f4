"""`allo-lsp serve` with every analysis' start and end written to a file: what ran at once is
then measured, not assumed from the server's design.

    .venv/bin/python bench/analysis_probe.py EVENTS [serve options]

`allo_lsp.analysis.analyze` (which every analysis of the server goes through: the editor's
documents via `ide.document`, and any other caller that imports it by name) is wrapped before
the rest of the server is imported; each call appends `start|end TIME THREAD` to EVENTS, TIME
from `time.perf_counter()` (CLOCK_MONOTONIC on Linux, the clock the benchmark client reads too).
`events(path)` reads them back and `at_once(...)` counts the largest number running together.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from pathlib import Path


def install(path: str) -> None:
    import allo_lsp.analysis as analysis

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    original = analysis.analyze

    @functools.wraps(original)
    def analyze(*args, **kwargs):
        # One write(2) per event: lines from several threads never interleave (O_APPEND).
        os.write(fd, b"start %.9f %d\n" % (time.perf_counter(), threading.get_ident()))
        try:
            return original(*args, **kwargs)
        finally:
            os.write(fd, b"end %.9f %d\n" % (time.perf_counter(), threading.get_ident()))

    analysis.analyze = analyze


def events(path: Path) -> list[tuple[str, float]]:
    """(kind, time) in the order written; a half-written last line (a killed server) is dropped."""
    try:
        text = path.read_text(encoding="ascii")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in ("start", "end"):
            out.append((parts[0], float(parts[1])))
    return out


def at_once(recorded: list[tuple[str, float]], since: float = float("-inf"), until: float = float("inf")) -> dict:
    """Analyses that started in [since, until] and the most that ran together in that window
    (one started before the window and still running counts while it runs)."""
    running = most = started = 0
    for kind, t in recorded:
        if kind == "start":
            running += 1
            if since <= t <= until:
                started += 1
                most = max(most, running)
        else:
            running = max(running - 1, 0)
    return {"analyses_started": started, "most_at_once": most}


def main(argv: list[str]) -> int:
    if not argv:
        sys.exit("usage: analysis_probe.py EVENTS [serve options]")
    install(argv[0])
    from allo_lsp.cli import main as cli

    return cli(["serve", *argv[1:]])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
