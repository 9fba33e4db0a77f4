"""The cluster jobs a workspace has submitted and not yet collected, in one JSON file.

Written whole (a temporary file renamed over it) under an advisory lock, so that neither a
server killed mid-write nor two servers of one workspace lose an entry: an entry is added right
after `sbatch` answers and removed only once its outcome is collected, so a server that dies
while polling leaves it for the next to re-attach to.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields

from allo_lsp.jobs.slurm_batch import locked, write_json

FILE = "slurm-jobs.json"


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
    def from_dict(data: dict) -> Submitted:
        known = {f.name for f in fields(Submitted)}
        return Submitted(**{k: v for k, v in data.items() if k in known})


class Registry:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(directory, FILE)

    def _read(self) -> list[Submitted]:
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return []  # none yet (a half-written file cannot be: it is renamed into place whole)
        return [Submitted.from_dict(d) for d in data.get("jobs", []) if isinstance(d, dict) and "job_id" in d]

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
