"""What travels between the job manager (jobs/manager.py) and a runner (runner/job.py), both sides.

Over pipes the runner inherits, never files another job could find:
- its command line: `--result-fd N --watchdog-fd M [--warm]` (jobs/isolation.py writes it);
- stdin: one `JobLine` (the request, the directory to work in, the environment to set, a nonce),
  then nothing: a pre-started (`--warm`) runner waits for it in `/`;
- stdout and stderr: what the design prints, with the runner's marker lines (`PHASE` + a phase
  name, `READY` once a pre-started runner has imported what every job needs), which the manager
  turns into progress and leaves out of the job's log;
- the result pipe (`--result-fd`, whose write end only the runner holds): one result line
  (`{"nonce": ..., "result": JobResult.to_json()}`), the runner's last act.
Nothing depends on parsing the design's output.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from allo_lsp.protocol.messages import JobRequest, JobResult

# The runner's options.
RESULT_FD = "--result-fd"
WATCHDOG_FD = "--watchdog-fd"
WARM = "--warm"  # start, import what every job needs, then wait for one job on stdin

# Marker lines on the runner's stderr.
PHASE = "@@allo-lsp phase "
READY = "@@allo-lsp ready"
STARTED = "started"  # the phase a READY line reports
_MARKERS = (PHASE.encode(), READY.encode())


def phase_line(name: str) -> str:
    return f"{PHASE}{name}"


def phase_of(line: bytes) -> str | None:
    """The phase a marker line reports; None for a line of the job's own output."""
    if line.startswith(_MARKERS[0]):
        return line[len(_MARKERS[0]) :].decode("utf-8", "replace").strip()
    if line.startswith(_MARKERS[1]):
        return STARTED
    return None


def is_marker(line: bytes) -> bool:
    """A line of the runner's own, not part of the user's log."""
    return line.startswith(_MARKERS)


@dataclass
class JobLine:
    """The job, as the one line the runner reads on stdin."""

    request: JobRequest
    cwd: str  # the job's directory (a pre-started runner waited in `/`)
    env: dict[str, str | None]  # set before Allo loads OpenMP; None: unset
    nonce: str  # only the runner learns it: the result line must carry it

    def encode(self) -> bytes:
        return (
            json.dumps({"request": asdict(self.request), "cwd": self.cwd, "env": self.env, "nonce": self.nonce}) + "\n"
        ).encode()

    @staticmethod
    def decode(line: bytes) -> JobLine:
        job = json.loads(line)
        return JobLine(JobRequest.from_dict(job["request"]), job["cwd"], job.get("env", {}), job["nonce"])


def result_line(nonce: str, result: JobResult) -> bytes:
    """What the runner writes last, on its result pipe."""
    return (json.dumps({"nonce": nonce, "result": result.to_json()}, default=repr) + "\n").encode()


def read_result(data: bytes, nonce: str, kind: str | None = None) -> JobResult | None:
    """The result in what came through the result pipe: the one line that carries this job's
    nonce, its details read as `kind`'s. Only the runner knows the nonce (it came on its stdin,
    read before the design runs), so lines without it (another job writing into the pipe) are
    ignored; two lines with it, or a torn one, are no result."""
    found = []
    for line in data.split(b"\n"):
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("nonce") == nonce:
            found.append(message.get("result"))
    if len(found) != 1 or not isinstance(found[0], dict):
        return None
    try:
        return JobResult.from_dict(found[0], kind)
    except (TypeError, ValueError, AttributeError):
        return None
