"""A synthesis as a Slurm batch job: the script sbatch runs, and what it runs on the node.

The job directory (on a filesystem the nodes share) holds `spec.json` (the design's text, the
region, the interpreter and synthesis settings, one point per task of an array), the generated
`job.sh`, Slurm's output and, per point, `point-N/` with the HLS project and `result.json`. The
script runs this module's `main` with the server's own interpreter; `main` runs a point's
synthesis as a local sweep does (`synthesis.synthesize_point`: the runner in the Allo interpreter
writes the project, then Vitis HLS), writes the outcome atomically, and exits non-zero when
synthesis did not pass (so that Slurm says FAILED).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import sys
from dataclasses import asdict, dataclass, field, replace

from allo_lsp.jobs.environment import PACKAGE_ROOT, SetupError
from allo_lsp.jobs.points import Constants, Point
from allo_lsp.jobs.storage import write_json
from allo_lsp.jobs.synthesis import device_error
from allo_lsp.protocol.job_values import name_error
from allo_lsp.protocol.messages import PASSED, SYNTHESIZE, JobResult

SPEC, SCRIPT, OUTPUT, RESULT = "spec.json", "job.sh", "slurm-%A_%a.out", "result.json"
FAILED_EXIT = 3  # synthesis ran and did not pass; the result says why
_ENTRY = "import sys; sys.path.insert(0, sys.argv[1]); from allo_lsp.jobs.slurm_batch import main; sys.exit(main(sys.argv[2:]))"


@dataclass
class BatchSpec:
    file: str
    region: str
    source: str  # the design's text as the editor had it when submitted
    python: str = ""
    llvm_build_dir: str = ""
    extra_env: dict = field(default_factory=dict)
    synth: dict = field(default_factory=dict)  # SynthConfig's fields
    points: list[Point] = field(default_factory=lambda: [Point()])

    def __post_init__(self) -> None:
        """What goes into the job directory's name, the batch script, Slurm's job name and each
        point's run.tcl is checked before any of them is made (the server checks the region
        against the design first: `launch.unknown_target`)."""
        synth = [(self.synth.get("part", ""), self.synth.get("clock_ns", 0.0))]
        devices = synth + [(p.part, p.clock_ns) for p in self.points]
        why = name_error(self.region) or next(filter(None, (device_error(*d) for d in devices)), None)
        if why is not None:
            raise SetupError(why)

    def write(self, job_dir: str) -> None:
        write_json(os.path.join(job_dir, SPEC), asdict(self))

    @staticmethod
    def read(job_dir: str) -> BatchSpec:
        with open(os.path.join(job_dir, SPEC), encoding="utf-8") as f:
            data = json.load(f)
        data["points"] = [Point(**p) for p in data.get("points", [])]
        return BatchSpec(**data)


def point_dir(job_dir: str, index: int) -> str:
    return os.path.join(job_dir, f"point-{index}")


def script(job_dir: str) -> str:
    """The batch script: the server's interpreter and package, run on the node. Nothing but its
    quoted arguments comes from outside (a comment ends at a newline, a quote does not)."""
    argv = [sys.executable, "-I", "-c", _ENTRY, PACKAGE_ROOT, job_dir]
    return f"#!/bin/sh\n# allo-lsp synthesis (generated)\nexec {shlex.join(argv)}\n"


def write_script(job_dir: str) -> str:
    path = os.path.join(job_dir, SCRIPT)
    with open(path, "w", encoding="utf-8") as f:
        f.write(script(job_dir))
    os.chmod(path, 0o755)
    return path


def read_result(job_dir: str, index: int) -> JobResult | None:
    """The outcome a point's task wrote, or None if it wrote none (it never ran, or died)."""
    try:
        with open(os.path.join(point_dir(job_dir, index), RESULT), encoding="utf-8") as f:
            return JobResult.from_dict(json.load(f), SYNTHESIZE)
    except (OSError, ValueError, TypeError):
        return None


def vitis_command(command: str) -> str:
    """Vitis 2025.1 and later have `vitis-run` and no `vitis_hls`: the one this node has."""
    if command == "vitis_hls" and shutil.which("vitis_hls") is None and shutil.which("vitis-run"):
        return "vitis-run"
    return command


async def _synthesize(spec: BatchSpec, point: Point, directory: str) -> JobResult:
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.launch import Target
    from allo_lsp.jobs.manager import JobManager
    from allo_lsp.jobs.synthesis import SynthConfig, synthesize_point

    synth = SynthConfig(**spec.synth)
    synth = replace(synth, command=vitis_command(synth.command))
    config = JobConfig(python=spec.python, llvm_build_dir=spec.llvm_build_dir, extra_env=spec.extra_env)
    os.environ["TMPDIR"] = directory  # the kept project goes beside the result, on the shared filesystem
    target = Target(spec.file, spec.region, SYNTHESIZE)
    return await synthesize_point(JobManager(), target, Constants(spec.source), point, config, synth)


def main(argv: list[str]) -> int:
    job_dir = argv[0]
    index = int(os.environ.get("SLURM_ARRAY_TASK_ID") or 0)
    spec = BatchSpec.read(job_dir)
    directory = point_dir(job_dir, index)
    os.makedirs(directory, exist_ok=True)
    try:
        result = asyncio.run(_synthesize(spec, spec.points[index], directory))
    except Exception as exc:  # noqa: BLE001 - whatever happens, the server reads an outcome
        result = JobResult("error", "crash", f"the batch job could not synthesize: {exc!r}", target=spec.region)
    write_json(os.path.join(directory, RESULT), result.to_json())
    print(f"allo-lsp: point {index}: {result.status}: {result.message}", flush=True)
    return 0 if result.status == PASSED else FAILED_EXIT
