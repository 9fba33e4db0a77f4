"""A single-node Slurm cluster on localhost, in one directory (facts in ../shared/TOOLCHAIN.md).

MUNGE and the two daemons run as root with every file under the directory; each client process
(sbatch, scontrol, the server under test) finds the cluster through `SLURM_CONF`.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = ("mungekey", "munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel", "sinfo")
PARTITION = "fpga"
_UP_S = 60.0  # the daemons' start; 0.3 s when all goes well


def missing() -> str | None:
    """Why no cluster can start here, or None."""
    if os.geteuid() != 0:
        return "the daemons of a local Slurm cluster run as root"
    absent = [p for p in PROGRAMS if shutil.which(p) is None and not os.path.exists(f"/usr/sbin/{p}")]
    if absent:
        return f"not installed: {', '.join(absent)} (apt-get install slurmctld slurmd slurm-client munge)"
    return None


def _program(name: str) -> str:
    return shutil.which(name) or f"/usr/sbin/{name}"


@dataclass
class Cluster:
    root: Path
    env: dict[str, str]  # what a client needs (SLURM_CONF) on top of the caller's environment

    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            argv, capture_output=True, text=True, timeout=60, env={**os.environ, **self.env}, check=check
        )

    def state(self) -> str:
        return self.run("sinfo", "-h", "-o", "%T", check=False).stdout.strip()

    def stop(self) -> None:
        """SIGTERM the daemons, SIGKILL those still there after a few seconds; then the directory."""
        pids = []
        for name in ("slurmd", "slurmctld", "munged"):
            try:
                pids.append(int((self.root / f"{name}.pid").read_text().split()[0]))
                os.kill(pids[-1], signal.SIGTERM)
            except (OSError, ValueError, IndexError):
                continue
        deadline = time.monotonic() + 10.0
        while any(os.path.exists(f"/proc/{pid}") for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)  # daemons give no notice of their exit to a process that is not their parent
        for pid in pids:
            if os.path.exists(f"/proc/{pid}"):
                os.kill(pid, signal.SIGKILL)
        for pid in _processes_with(f"SLURM_CONF={self.env['SLURM_CONF']}".encode()):
            os.kill(pid, signal.SIGKILL)  # a job step (slurmstepd) the stopped slurmd left
        shutil.rmtree(self.root, ignore_errors=True)


def _processes_with(variable: bytes) -> list[int]:
    """Other processes whose environment has `variable` (NAME=value)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if variable in f.read().split(b"\0") and int(entry) != os.getpid():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _conf(root: Path, host: str) -> str:
    node = subprocess.run([_program("slurmd"), "-C"], capture_output=True, text=True, check=True).stdout
    node_line = next(line for line in node.splitlines() if line.startswith("NodeName="))
    return f"""\
ClusterName=allolsp
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge/munge.socket.2
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={root}/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
MinJobAge=3600
KillWait=5
EnforcePartLimits=ALL
MailProg=/bin/true
ReturnToService=2
{node_line.split(" UpTime=")[0]} NodeAddr=127.0.0.1
PartitionName={PARTITION} Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(root: Path) -> Cluster:
    """Start MUNGE, slurmctld and slurmd under `root`; wait until the node is idle."""
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    for sub in ("munge", "state", "spool"):
        (root / sub).mkdir(exist_ok=True)
    (root / "munge").chmod(0o755)  # munged refuses a socket directory others can write
    host = socket.gethostname().split(".")[0]
    (root / "slurm.conf").write_text(_conf(root, host))
    cluster = Cluster(root, {"SLURM_CONF": str(root / "slurm.conf")})
    key = root / "munge" / "munge.key"
    subprocess.run([_program("mungekey"), "-c", "-k", str(key)], check=True, capture_output=True)
    subprocess.run(
        [
            _program("munged"),
            f"--key-file={key}",
            f"--socket={root}/munge/munge.socket.2",
            f"--pid-file={root}/munged.pid",
            f"--log-file={root}/munged.log",
            f"--seed-file={root}/munge/munge.seed",
        ],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, **cluster.env}
    for daemon in ("slurmctld", "slurmd"):
        subprocess.run([_program(daemon)], check=True, capture_output=True, env=env)
    deadline = time.monotonic() + _UP_S
    while cluster.state() != "idle":
        if time.monotonic() > deadline:
            cluster.stop()
            logs = "\n".join(
                (root / f).read_text()[-2000:] for f in ("slurmctld.log", "slurmd.log") if (root / f).exists()
            )
            raise RuntimeError(f"the local Slurm cluster did not come up:\n{logs}")
        time.sleep(0.1)  # polling the daemons' own answer, within the deadline above
    return cluster
