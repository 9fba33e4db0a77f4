"""The cluster jobs a workspace has submitted and not yet collected, in one JSON file.

Written whole (a temporary file renamed over it) under an advisory lock, so that neither a
server killed mid-write nor two servers of one workspace lose an entry: an entry is added right
after `sbatch` answers and removed only once its outcome is collected, so a server that dies
while polling leaves it for the next to re-attach to. Read as hostile (`storage.py`): a file
that is not `{"jobs": [...]}` is set aside, an entry whose fields are not what a server writes
is left out (and logged); neither stops the other entries.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field, fields

from allo_lsp.jobs.slurm import SlurmConfig
from allo_lsp.jobs.storage import locked, read_json, set_aside, write_json

log = logging.getLogger(__name__)
FILE = "slurm-jobs.json"
LIMIT = 16 * 1024 * 1024  # bytes of the file read
MAX_TASKS = 4_000_001  # Slurm's own largest MaxArraySize: no recorded array has more points
_TEXTS = ("job_id", "region", "file", "job_dir", "uri")


@dataclass
class Submitted:
    job_id: str
    region: str
    file: str
    job_dir: str  # spec, script, Slurm's output and each point's project and result
    submitted_at: float  # time.time()
    uri: str = ""  # the editor's document; empty for the command line's
    points: int = 1  # more than one: a job array (a sweep)
    settings: dict = field(default_factory=dict)  # the Slurm settings it was submitted with

    @staticmethod
    def from_dict(data: object) -> Submitted | None:
        """The entry a server wrote; None when it is not one (a field missing or of another type)."""
        if not isinstance(data, dict):
            return None
        entry = {k: data[k] for k in (f.name for f in fields(Submitted)) if k in data}
        points, settings = entry.get("points", 1), entry.get("settings", {})
        if (
            not all(isinstance(entry.get(k, ""), str) for k in _TEXTS)
            or not entry.get("job_id")
            or not entry.get("job_dir")
            or not _is_number(entry.get("submitted_at"))
            or not (isinstance(points, int) and not isinstance(points, bool) and 1 <= points <= MAX_TASKS)
            or not isinstance(settings, dict)
        ):
            return None
        entry["settings"] = _slurm_settings(settings)
        return Submitted(**entry)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _slurm_settings(settings: dict) -> dict:
    """The `SlurmConfig` fields of a stored entry's settings, each of its type (others dropped)."""
    defaults = asdict(SlurmConfig())
    return {k: v for k, v in settings.items() if k in defaults and type(v) is type(defaults[k])}


class Registry:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(directory, FILE)

    def _read(self) -> list[Submitted]:
        data = read_json(self.path, LIMIT)  # None: none yet (a half-written file cannot be: renamed whole)
        if data is None:
            return []
        if not isinstance(data, dict) or not isinstance(data.get("jobs"), list):
            set_aside(self.path, 'not {"jobs": [...]}')
            return []
        entries = [Submitted.from_dict(d) for d in data["jobs"]]
        if None in entries:
            log.warning("%s: %d entries that are not a submitted job left out", self.path, entries.count(None))
        return [e for e in entries if e is not None]

    def entries(self) -> list[Submitted]:
        if not os.path.exists(self.path):
            return []  # nothing ever submitted: nothing made in the storage either
        with locked(self.path):
            return self._read()

    def add(self, entry: Submitted) -> None:
        with locked(self.path):
            kept = [e for e in self._read() if e.job_id != entry.job_id]
            write_json(self.path, {"jobs": [asdict(e) for e in [*kept, entry]]})

    def remove(self, job_id: str) -> None:
        with locked(self.path):
            kept = [e for e in self._read() if e.job_id != job_id]
            write_json(self.path, {"jobs": [asdict(e) for e in kept]})
