"""Slurm's commands as the jobs use them: submit a batch script, read a job's state, cancel it.

Only `sbatch`, `scontrol -o show job` and `scancel` (`sacct` is often disabled), each an argument
vector run with a deadline (a dead controller makes every command wait seconds), through
`ssh HOST` when the cluster is reached over SSH (`alloDataflow.slurm.loginHost`). Each failure
becomes one `SlurmError` whose message names what to change.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import shutil
from dataclasses import dataclass, field

COMMAND_S = 30.0  # a controller that has not answered by then is down
# States after which a job never runs again (`scontrol`'s JobState).
TERMINAL = frozenset(
    {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
)
PENDING, RUNNING, COMPLETED, CANCELLED_STATE = "PENDING", "RUNNING", "COMPLETED", "CANCELLED"
LAUNCH_FAILED = "0:53"  # ExitCode of a job whose output or working directory could not be opened


class SlurmError(Exception):
    """A Slurm command failed; the message says what to change."""


class NoSlurm(SlurmError):
    """The Slurm commands (or ssh) are not there: asking again will not help."""


@dataclass(frozen=True)
class SlurmConfig:
    partition: str = ""  # empty: the cluster's default partition
    time: str = ""  # sbatch --time (minutes, or [D-]HH:MM:SS); empty: the partition's default
    cpus: int = 0  # sbatch --cpus-per-task; 0: Slurm's default
    mem: str = ""  # sbatch --mem (e.g. 16G); empty: the partition's default
    extra_args: str = ""  # more sbatch options, split as a shell would
    login_host: str = ""  # run the commands as `ssh HOST ...`; empty: here

    def options(self) -> list[str]:
        out = [f"--partition={self.partition}"] if self.partition else []
        out += [f"--time={self.time}"] if self.time else []
        out += [f"--cpus-per-task={self.cpus}"] if self.cpus else []
        out += [f"--mem={self.mem}"] if self.mem else []
        return out + shlex.split(self.extra_args)


@dataclass(frozen=True)
class JobState:
    job_id: str  # `4711`, or `4711_2` for a task of an array
    state: str  # JobState: PENDING, RUNNING, COMPLETED, FAILED, ...
    reason: str = ""  # why it waits or ended: Resources, Priority, NonZeroExitCode, ...
    exit_code: str = "0:0"  # exit status:signal
    run_s: int = 0  # RunTime
    task: int | None = None  # ArrayTaskId
    fields: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def done(self) -> bool:
        return self.state in TERMINAL


def argv_for(config: SlurmConfig, argv: list[str]) -> list[str]:
    """`argv` as it runs for this cluster: here, or on the login host (one quoted command line)."""
    if not config.login_host:
        return argv
    return ["ssh", "-o", "BatchMode=yes", "--", config.login_host, shlex.join(argv)]  # "--": HOST is never an option


async def run(config: SlurmConfig, argv: list[str], timeout_s: float = COMMAND_S) -> tuple[int, str, str]:
    """(status, stdout, stderr) of one Slurm command; SlurmError when it cannot run or answer."""
    full = argv_for(config, argv)
    if shutil.which(full[0]) is None:
        where = "ssh (for alloDataflow.slurm.loginHost)" if config.login_host else full[0]
        raise NoSlurm(
            f"{where} is not on PATH: install the Slurm client commands (sbatch, scontrol, scancel) where the "
            "editor runs, or set alloDataflow.slurm.loginHost to a host that has them, or set "
            "alloDataflow.scheduler to local"
        )
    process = await asyncio.create_subprocess_exec(
        *full, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout_s)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        raise SlurmError(f"{argv[0]} did not answer in {timeout_s:g} s: is the Slurm controller up?") from None
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def submission_error(stderr: str, config: SlurmConfig) -> str:
    """sbatch's refusal in words that name the setting to change."""
    said = " ".join(line.removeprefix("sbatch: error: ").strip() for line in stderr.strip().splitlines()[-2:])
    if "invalid partition" in stderr.lower():
        return (
            f"the partition {config.partition!r} does not exist on this cluster (sbatch: {said}): set "
            "alloDataflow.slurm.partition to one `sinfo -s` lists, or empty for the default"
        )
    limits = ("More processors requested", "Requested node configuration", "memory specification", "Time limit")
    if any(s.lower() in stderr.lower() for s in limits) or "policy" in stderr.lower():
        return (
            f"the cluster rejected the request (sbatch: {said}): lower alloDataflow.slurm.cpus, .mem or .time "
            "to what the partition allows (`scontrol show partition`)"
        )
    return f"sbatch refused the job: {said or 'no reason given'} (alloDataflow.slurm.extraArgs and the other slurm settings)"


async def submit(config: SlurmConfig, script: str, chdir: str, output: str, name: str, array: str | None = None) -> str:
    """Submit `script`; its job id."""
    argv = ["sbatch", "--parsable", f"--chdir={chdir}", f"--output={output}", f"--job-name={name}"]
    argv += [f"--array={array}"] if array else []
    status, out, err = await run(config, [*argv, *config.options(), script])
    if status != 0:
        raise SlurmError(submission_error(err, config))
    job_id = out.strip().split(";")[0]  # `ID` or `ID;cluster`
    if not job_id.isdigit():
        raise SlurmError(f"sbatch answered {out.strip()!r}, not a job id")
    return job_id


# `Key=value` at the start of a word (the value may hold `=`: `TRES=cpu=1,mem=4G`). Only at a word's
# start: `(\S+?)=` tried at every position was quadratic in a long word without `=` (a job's name).
_FIELD = re.compile(r"(?<!\S)(\S[^\s=]*)=(\S*)")


def parse_states(text: str) -> list[JobState]:
    """`scontrol -o show job`'s lines (one per job, or per task of an array)."""
    states = []
    for line in text.splitlines():
        fields = dict(_FIELD.findall(line))
        if "JobId" not in fields:
            continue
        task = fields.get("ArrayTaskId", "")
        states.append(
            JobState(
                f"{fields['ArrayJobId']}_{task}" if task.isdigit() else fields["JobId"],
                fields.get("JobState", "UNKNOWN"),
                "" if fields.get("Reason") in (None, "None") else fields["Reason"],
                fields.get("ExitCode", "0:0"),
                _seconds(fields.get("RunTime", "")),
                int(task) if task.isdigit() else None,
                fields,
            )
        )
    return sorted(states, key=lambda s: -1 if s.task is None else s.task)


def _seconds(run_time: str) -> int:
    """`[D-]HH:MM:SS` as seconds (0 when unreadable)."""
    days, _, clock = run_time.rpartition("-")
    try:
        parts = [int(p) for p in clock.split(":")]
        seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
        return seconds + (int(days) * 86400 if days else 0)
    except ValueError:
        return 0


async def states(config: SlurmConfig, job_id: str) -> list[JobState] | None:
    """The job's state (one per task of an array); None when Slurm no longer knows it (purged
    after MinJobAge)."""
    status, out, err = await run(config, ["scontrol", "-o", "show", "job", job_id])
    if status != 0:
        if "Invalid job id" in err:
            return None
        raise SlurmError(f"scontrol cannot read job {job_id}: {err.strip()}")
    return parse_states(out)


async def cancel(config: SlurmConfig, job_id: str) -> None:
    status, _, err = await run(config, ["scancel", job_id])
    if status != 0 and "Invalid job id" not in err:
        raise SlurmError(f"scancel {job_id} failed: {err.strip()}")


def failure(state: JobState) -> str | None:
    """What a job that ended without its result says, naming what to change; None if it completed."""
    if state.state == COMPLETED:
        return None
    if state.exit_code == LAUNCH_FAILED or state.reason == "JobLaunchFailure":
        return (
            f"job {state.job_id} failed to launch (exit {state.exit_code}): its working or output directory is "
            "not there on the compute node; the workspace's storage must be on a filesystem the nodes share"
        )
    if state.state == "NODE_FAIL":
        return f"the node running job {state.job_id} failed: synthesize again (the job is not requeued)"
    if state.state == "TIMEOUT":
        return f"job {state.job_id} reached its time limit: raise alloDataflow.slurm.time"
    if state.state == "OUT_OF_MEMORY":
        return f"job {state.job_id} ran out of memory: raise alloDataflow.slurm.mem"
    if state.state == "CANCELLED":
        return f"job {state.job_id} was cancelled"
    return f"job {state.job_id} ended {state.state} ({state.reason or 'no reason'}, exit {state.exit_code})"
