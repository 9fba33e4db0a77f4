"""Each region's newest synthesis report, kept across servers: the report view shows the change
since the run before, also when that run was an earlier server's.

One JSON file in the workspace's storage (where its cluster jobs are kept, `slurm_jobs.py`),
keyed by the design's file, the region and what the report says it was synthesized for (the
part and the target clock: a run for another part is not "the run before"). Bounded: the newest
`KEPT` regions, a report of at most `REPORT_LIMIT` characters. Written whole, 0600
(`storage.write_json`); a missing file is an empty one, an unreadable one (not JSON, nested past
Python's limits, not `{"reports": {...}}`) is set aside, logged and written afresh, an entry that
holds no report (`protocol/report.py` cannot read it) is dropped, and when the file cannot be
read or written the reports of this server's runs are still kept in memory. Reports are kept
and given back as their JSON, as they came.
"""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import ExitStack

from allo_lsp.jobs.storage import locked, make_dir, read_json, set_aside, write_json
from allo_lsp.protocol.report import Report, decoded, known

log = logging.getLogger(__name__)
FILE = "synthesis-reports.json"
KEPT = 64  # regions
REPORT_LIMIT = 256 * 1024  # characters of a report's JSON; a larger report is not kept
FILE_LIMIT = 2 * KEPT * REPORT_LIMIT  # bytes of the file read (its JSON escapes may take more)


def key_of(file: str, region: str, report: Report) -> str:
    return json.dumps([file, region, report.part, known(report.clock.target_ns)])


class PreviousReports:
    def __init__(self, directory: str | None) -> None:
        self.path = os.path.join(directory, FILE) if directory else None
        self._entries: dict[str, dict] = {}  # as last read or written

    def swap(self, file: str, region: str, report: dict) -> dict | None:
        """`report` kept as the newest of its region; returns the one it follows (None: none kept,
        or `report` is no report's JSON)."""
        typed = decoded(report)
        if typed is None:
            log.warning("a synthesis report of %s::%s that is not one is not kept", file, region)
            return None
        key = key_of(file, region, typed)
        with ExitStack() as stack:
            self._lock(stack)  # two servers of one workspace: neither loses the other's region
            entries = self._read()
            before = entries.pop(key, None)
            if len(json.dumps(report)) <= REPORT_LIMIT:
                entries[key] = {"report": report, "at": time.time()}
            else:
                log.warning("a synthesis report of %s::%s over %d characters is not kept", file, region, REPORT_LIMIT)
            self._entries = dict(sorted(entries.items(), key=lambda item: item[1]["at"])[-KEPT:])
            self._write()
        return before["report"] if before is not None else None

    def _lock(self, stack: ExitStack) -> None:
        if self.path is None:
            return
        try:
            stack.enter_context(locked(self.path))
        except OSError as exc:  # as when the file cannot be written: this server's reports in memory only
            log.warning("the synthesis reports could not be kept in %s: %r", self.path, exc)
            self.path = None

    def _read(self) -> dict[str, dict]:
        if self.path is None:
            return dict(self._entries)
        data = read_json(self.path, FILE_LIMIT)
        if data is None:  # none yet, or set aside: what this server kept, written afresh
            return dict(self._entries)
        reports = data.get("reports") if isinstance(data, dict) else None
        if not isinstance(reports, dict):
            set_aside(self.path, 'not {"reports": {...}}')
            return dict(self._entries)
        return {
            key: entry
            for key, entry in reports.items()
            if isinstance(entry, dict)
            and isinstance(entry.get("at"), (int, float))
            and not isinstance(entry.get("at"), bool)
            and decoded(entry.get("report")) is not None
        }

    def _write(self) -> None:
        if self.path is None:
            return
        try:
            make_dir(os.path.dirname(self.path))
            write_json(self.path, {"reports": self._entries})
        except (OSError, TypeError, ValueError) as exc:
            log.warning("the synthesis reports could not be kept in %s: %r", self.path, exc)
