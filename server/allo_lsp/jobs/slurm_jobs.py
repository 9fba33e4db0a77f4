"""Synthesis on a Slurm cluster: submitted, recorded, followed to its end and collected.

A job is submitted as a generated batch script (`slurm_batch.py`) in a job directory under the
workspace's storage, recorded in the registry (`registry.py`), followed with `scontrol` until it
ends, and collected: each point's outcome as its task wrote it (the report parsed, the figures
as a local run's), or, when the task wrote none, what Slurm says happened. Cluster jobs are left
running when the server ends; the next server re-attaches to them (`ClusterJobs.reattach`).
"""

from __future__ import annotations

import asyncio
import glob
import hashlib
import logging
import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from allo_lsp.jobs import slurm
from allo_lsp.jobs.registry import Registry, Submitted
from allo_lsp.jobs.slurm import CANCELLED_STATE, COMPLETED, JobState, SlurmConfig, SlurmError
from allo_lsp.jobs.slurm_batch import BatchSpec, point_dir, read_result, write_script
from allo_lsp.jobs.storage import make_dir
from allo_lsp.protocol.messages import CANCELLED, DETAIL_LIMIT, ENVIRONMENT, ERROR, SYNTHESIZE, TIMEOUT, JobResult

log = logging.getLogger(__name__)
CLUSTER = "slurm"  # cause: the job ended without a result, as Slurm tells
# Polls grow apart: every second at most in a job's first minute (a short job's figures soon
# after it ends), every 10 s after (a synthesis of hours need not be asked more).
_FIRST_POLL_S, _EARLY_POLL_S, _LATE_POLL_S, _EARLY_S = 0.2, 1.0, 10.0, 60.0


def given_storage(value: object) -> str | None:
    """The storage directory the client gives in its initializationOptions (VS Code: the
    extension's `context.storageUri`, `protocol.vocabulary.WORKSPACE_STORAGE`), or None (Neovim,
    the command line, anything but an absolute path)."""
    return value if isinstance(value, str) and os.path.isabs(value) else None


def storage_dir(workspace_root: str | None, given: str | None = None) -> str:
    """The workspace's storage: the editor's own when it gives one (`given_storage`), else
    `$XDG_STATE_HOME/allo-lsp/workspaces/<digest of its root>`. On a cluster the home directory,
    where both are, is the filesystem the nodes share."""
    if given:
        return given
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    digest = hashlib.sha256((workspace_root or "").encode()).hexdigest()[:16]
    return os.path.join(base, "allo-lsp", "workspaces", digest)


async def check_shared(config: SlurmConfig, job_dir: str) -> None:
    """The login host must read the job directory at the same path, or its nodes cannot."""
    token = secrets.token_hex(8)
    path = os.path.join(job_dir, "shared-check")
    with open(path, "w", encoding="utf-8") as f:
        f.write(token)
    _, out, _ = await slurm.run(config, ["cat", path])
    if out.strip() != token:
        raise SlurmError(
            f"{config.login_host} does not see {job_dir}: the workspace's storage must be on a filesystem "
            "the login host and its nodes share (VS Code's workspace storage is under the home directory; "
            "without an editor's storage, set XDG_STATE_HOME to a directory on that filesystem)"
        )


@dataclass
class Cancel:
    """The Cancel of one cluster job, which may come before its id is known (while `sbatch` runs,
    before its answer): the job is then scancelled as soon as the id is (`known`)."""

    config: SlurmConfig
    job_id: str | None = None
    wanted: bool = False

    def request(self) -> None:
        self.wanted = True
        if self.job_id is not None:
            asyncio.ensure_future(_cancel(self.config, self.job_id))

    def known(self, job_id: str) -> None:
        self.job_id = job_id
        if self.wanted:
            asyncio.ensure_future(_cancel(self.config, job_id))


async def submit(
    config: SlurmConfig, storage: str, spec: BatchSpec, uri: str = "", cancel: Cancel | None = None
) -> Submitted:
    """Write the job directory, submit it (a job array for several points), record it; a Cancel
    that came while `sbatch` ran scancels it once recorded. A submission that fails (sbatch
    refuses it, the login host does not see the storage) leaves no job directory behind."""
    jobs = os.path.join(storage, "jobs")
    make_dir(jobs)
    job_dir = tempfile.mkdtemp(prefix=f"{time.strftime('%Y%m%d-%H%M%S')}-{spec.region}-", dir=jobs)
    try:
        job_id = await _submit(config, spec, job_dir)
    except Exception:  # not a cancelled task: sbatch may have taken the job, whose directory it is
        shutil.rmtree(job_dir, ignore_errors=True)
        raise
    entry = Submitted(job_id, spec.region, spec.file, job_dir, time.time(), uri, len(spec.points), asdict(config))
    Registry(storage).add(entry)
    if cancel is not None:
        cancel.known(job_id)
    return entry


async def _submit(config: SlurmConfig, spec: BatchSpec, job_dir: str) -> str:
    for index in range(len(spec.points)):
        os.makedirs(point_dir(job_dir, index))  # Slurm fails a job whose output directory is missing
    spec.write(job_dir)
    script = write_script(job_dir)
    if config.login_host:
        await check_shared(config, job_dir)
    array = f"0-{len(spec.points) - 1}" if len(spec.points) > 1 else None
    output = os.path.join(job_dir, "slurm-%A_%a.out" if array else "slurm-%j.out")
    return await slurm.submit(config, script, job_dir, output, f"allo-lsp:{spec.region}", array)


async def wait(
    config: SlurmConfig, entry: Submitted, seen: Callable[[list[JobState]], None] = lambda states: None
) -> list[JobState]:
    """Poll until every task of the job has ended; its final states ([] when Slurm has forgotten
    it: the results on disk tell). A controller that does not answer is asked again."""
    delay = _FIRST_POLL_S
    while True:
        try:
            states = await slurm.states(config, entry.job_id)
        except slurm.NoSlurm:
            raise
        except SlurmError as exc:
            log.warning("job %s: %s", entry.job_id, exc)
            states = []
        else:
            if states is None:
                return []
            seen(states)
            if states and all(s.done for s in states):
                return states
        await asyncio.sleep(delay)
        cap = _EARLY_POLL_S if time.time() - entry.submitted_at < _EARLY_S else _LATE_POLL_S
        delay = min(delay * 1.5, cap)


def _output(entry: Submitted, index: int) -> str:
    """The tail of the task's Slurm output (the batch payload's own lines, Python's traceback)."""
    pattern = f"slurm-{entry.job_id}_{index}.out" if entry.points > 1 else f"slurm-{entry.job_id}.out"
    for path in glob.glob(os.path.join(entry.job_dir, pattern)):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-DETAIL_LIMIT:]
    return ""


def collect(entry: Submitted, final: list[JobState]) -> list[JobResult]:
    """Each point's outcome, in order."""
    by_task = {0 if s.task is None else s.task: s for s in final}
    out = []
    for index in range(entry.points):
        state = by_task.get(index)
        result = read_result(entry.job_dir, index)
        if result is None or (state is not None and state.state not in (COMPLETED, "FAILED")):
            result = _without_result(entry, state)
            result.of_kind(SYNTHESIZE).details.log = _output(entry, index)
        result.target = entry.region
        out.append(result.of_kind(SYNTHESIZE))
    return out


def _without_result(entry: Submitted, state: JobState | None) -> JobResult:
    if state is None:
        return JobResult(ERROR, CLUSTER, f"job {entry.job_id} left no result and Slurm no longer knows it")
    if state.state == CANCELLED_STATE:
        return JobResult(CANCELLED, None, "cancelled")
    message = slurm.failure(state) or f"job {state.job_id} completed without writing its result"
    return JobResult(
        TIMEOUT if state.state == "TIMEOUT" else ERROR, "timeout" if state.state == "TIMEOUT" else CLUSTER, message
    )


@dataclass
class ClusterJobs:
    """The editor's cluster jobs: the state each is in (its lens), how to cancel it."""

    storage: str | None = None  # set with the workspace (`attach`)
    given: str | None = None  # the editor's storage for the workspace (initializationOptions)
    on_change: Callable[[str], None] | None = None  # a document's lenses change
    states: dict[tuple[str, str], JobState] = field(default_factory=dict)  # (uri, region) -> newest state
    followed: dict[str, Cancel] = field(default_factory=dict)  # job key -> its Cancel (from before sbatch answers)

    def attach(self, workspace_root: str | None, on_change: Callable[[str], None]) -> list[Submitted]:
        """Once per server: where the workspace's jobs are kept; those a server before submitted."""
        self.storage, self.on_change = storage_dir(workspace_root, self.given), on_change
        return Registry(self.storage).entries()

    def storage_for(self, workspace_root: str | None) -> str:
        """Where this workspace's cluster jobs are kept (before `attach` too)."""
        return self.storage or storage_dir(workspace_root, self.given)

    async def synthesize(self, key: str, uri: str, spec: BatchSpec, config: SlurmConfig) -> JobResult:
        # Followed from before sbatch answers: a Cancel in between is not lost.
        cancel = self.followed[key] = Cancel(config)
        try:
            entry = await submit(config, self.storage_for(None), spec, uri, cancel)
        except (SlurmError, OSError) as exc:
            self.followed.pop(key, None)
            return JobResult(ERROR, ENVIRONMENT, str(exc), target=spec.region).of_kind(SYNTHESIZE)
        return await self.follow(key, entry)

    async def follow(self, key: str, entry: Submitted) -> JobResult:
        """The job to its outcome; removed from the registry only once collected."""
        config = SlurmConfig(**entry.settings)
        self.followed.setdefault(key, Cancel(config, entry.job_id))  # a re-attached job's is made here
        where = (entry.uri, entry.region)

        def seen(states: list[JobState]) -> None:
            newest = states[0]
            old = self.states.get(where)
            self.states[where] = newest
            if self.on_change and (
                old is None
                or (old.state, old.reason, old.run_s // 60) != (newest.state, newest.reason, newest.run_s // 60)
            ):
                self.on_change(entry.uri)

        try:
            final = await wait(config, entry, seen)
        except SlurmError as exc:
            return JobResult(ERROR, ENVIRONMENT, str(exc), target=entry.region).of_kind(SYNTHESIZE)
        finally:
            self.followed.pop(key, None)
            self.states.pop(where, None)
        result = collect(entry, final)[0]
        Registry(self.storage_for(None)).remove(entry.job_id)
        return result

    def cancel(self, key: str) -> bool:
        """`scancel` the job under `key`; its follower then collects it as cancelled."""
        if key not in self.followed:
            return False
        self.followed[key].request()
        return True

    def keys(self) -> list[str]:
        return list(self.followed)


async def _cancel(config: SlurmConfig, job_id: str) -> None:
    try:
        await slurm.cancel(config, job_id)
    except SlurmError as exc:
        log.warning("%s", exc)


def batch_spec(file: str, region: str, source: str, config, synth) -> BatchSpec:
    """One synthesis of the design's `source` with the editor's settings (`JobConfig`, `SynthConfig`)."""
    return BatchSpec(file, region, source, config.python, config.llvm_build_dir, dict(config.extra_env), asdict(synth))
