"""Vitis HLS synthesis of a region: Allo writes the project, then the tool runs on it.

Two processes: the runner (in the Allo interpreter) builds the region with
`target="vitis_hls", mode="csyn"` into a private project directory; then Vitis HLS
(`vitis_hls -f run.tcl`, or `vitis-run --mode hls --tcl run.tcl`), optionally through a launcher
prefix (`srun -p fpga -t 4:00:00`, `ssh build-host`) that must see the same path, runs there
while its log streams as progress. Failure is decided from the `ERROR: [...]` lines this run
printed, the exit status, and whether this run wrote `csynth.xml`; the project is kept for the
report view.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import time
from dataclasses import dataclass, replace

from allo_lsp.analysis.model import FileModel
from allo_lsp.jobs.environment import JobConfig, SetupError
from allo_lsp.jobs.launch import Target, prepare
from allo_lsp.jobs.manager import JobManager, Progress
from allo_lsp.jobs.points import Constants, Point
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.job_values import clock_error, part_error
from allo_lsp.protocol.messages import DETAIL_LIMIT, ENVIRONMENT, ERROR, FAILED, PASSED, SYNTHESIZE, TIMEOUT, JobResult
from allo_lsp.reports import ReportError, failed, find_report, format_markdown, parse_report, scan_log

COMMANDS = {
    "vitis_hls": ["vitis_hls", "-f", "run.tcl"],
    "vitis-run": ["vitis-run", "--mode", "hls", "--tcl", "run.tcl"],
}
SYNTHESIS = "synthesis"  # cause: the tool reported errors
# Log lines that say how far synthesis got (shown as progress), in the order Vitis prints them:
# the wording of Vitis HLS 2020.x logs and of 2022+ ones (`Finished Source Code Analysis ...`).
_PHASES = (
    (b"] Analyzing design file", "analysing the C++"),
    (b"] Finished Source Code Analysis", "compiling"),
    (b"] Finished Linking", "compiling"),
    (b"] Starting code transformations", "transforming the code"),
    (b"] Finished Compiling Optimization", "transforming the code"),
    (b"] Checking synthesizability", "checking synthesizability"),
    (b"] Finished Pre-synthesis", "pre-synthesis done"),
    (b"] Finished Architecture Synthesis", "architecture synthesis done"),
    (b"] Starting hardware synthesis", "hardware synthesis"),
    (b"] Finished generating all RTL models", "writing the RTL"),
)
# Per module of the design, between `-- Implementing module 'name'` lines: "<module>: <phase>".
_MODULE = re.compile(rb"\] -- Implementing module '([^']{1,200})'")
_MODULE_PHASES = (
    (b"] Starting scheduling", "scheduling"),
    (b"] Finished scheduling", "scheduled"),
    (b"] Starting micro-architecture generation", "binding"),
)


class _Phases:
    """A Vitis log line -> the phase it starts (None for other lines), remembering the module
    being implemented."""

    def __init__(self) -> None:
        self.module = ""

    def __call__(self, line: bytes) -> str | None:
        if (found := _MODULE.search(line)) is not None:
            self.module = found.group(1).decode("utf-8", "replace")
            return None
        if self.module and (phase := _first(line, _MODULE_PHASES)) is not None:
            return f"{self.module}: {phase}"
        return _first(line, _PHASES)


def _first(line: bytes, table) -> str | None:
    return next((name for marker, name in table if marker in line), None)


@dataclass(frozen=True)
class SynthConfig:
    command: str = "vitis_hls"  # or "vitis-run" (Vitis 2024.2+)
    part: str = ""  # empty: what Allo wrote into run.tcl
    clock_ns: float = 0.0  # 0: what Allo wrote
    launcher_prefix: str = ""  # e.g. "srun -p fpga -t 4:00:00" or "ssh build-host"
    timeout_s: float = 4 * 3600.0


def tool_argv(config: SynthConfig) -> list[str]:
    if config.command not in COMMANDS:
        raise SetupError(f"alloDataflow.vitis.command must be one of {', '.join(COMMANDS)}")
    prefix = shlex.split(config.launcher_prefix)
    argv = prefix + COMMANDS[config.command]
    if not prefix and shutil.which(argv[0]) is None:
        raise SetupError(
            f"{argv[0]} is not on PATH: install Vitis HLS (and source its settings64.sh before starting "
            "the editor), or set alloDataflow.vitis.launcherPrefix to run it where Vitis and its "
            "licences live (e.g. 'srun -p fpga -t 4:00:00' or 'ssh build-host')."
        )
    if prefix and shutil.which(prefix[0]) is None:
        raise SetupError(f"the launcher {prefix[0]!r} (alloDataflow.vitis.launcherPrefix) is not on PATH")
    return argv


def device_error(part: object, clock_ns: object) -> str | None:
    """Why the part or the clock cannot go into run.tcl, or None (`protocol/job_values.py`)."""
    return part_error(part) or clock_error(clock_ns)


def tcl_quote(text: str) -> str:
    """`text` as one Tcl word that stands for itself: each character Tcl would read otherwise
    (substitution, quoting, a word's or a command's end: Tcl's parser knows ASCII only) escaped.
    Not braces: a brace quote holds only balanced text without a backslash-newline."""
    if not text:
        return "{}"
    return "".join(_TCL_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " or c == "\x7f" else c) for c in text)


_TCL_ESCAPES = {c: f"\\{c}" for c in '\\$[]{}";# '}


def configure_tcl(path: str, config: SynthConfig) -> None:
    """Device and clock from the settings, in place of what Allo wrote (checked before the job
    was built, quoted all the same)."""
    with open(path, encoding="utf-8") as f:
        tcl = f.read()
    if config.part:
        line = f"set_part {tcl_quote(config.part)}"
        tcl = re.sub(r"^set_part .*$", lambda match: line, tcl, flags=re.M)
    if config.clock_ns:
        line = f"create_clock -period {tcl_quote(f'{config.clock_ns:g}')} -name default"
        tcl = re.sub(r"^create_clock .*$", lambda match: line, tcl, flags=re.M)
    with open(path, "w", encoding="utf-8") as f:
        f.write(tcl)


async def synthesize(
    manager: JobManager,
    target: Target,
    model: FileModel,
    config: JobConfig,
    synth: SynthConfig,
    progress: Progress = lambda phase: None,
    source: str | None = None,
) -> JobResult:
    """`source`: the design's text when it is not the file's on disk (the editor's, a sweep's point)."""
    try:
        if (why := device_error(synth.part, synth.clock_ns)) is not None:
            raise SetupError(why)
        spec = prepare(Target(target.file, target.name, SYNTHESIZE, target.uri), model, config, backend="allo")
        spec.request.source = source
        argv = tool_argv(synth)
    except SetupError as exc:
        return JobResult(ERROR, ENVIRONMENT, str(exc), target=target.name, backend="allo").of_kind(SYNTHESIZE)
    spec.keep_dir = True
    generated = await manager.run(spec, progress)
    if generated.status != PASSED:
        return generated
    project = details_as(generated.details, SynthesisDetails).project
    tcl = os.path.join(project, "run.tcl")
    if not os.path.isfile(tcl):
        return JobResult(ERROR, "allo_error", f"Allo wrote no run.tcl into {project}", target=target.name).of_kind(
            SYNTHESIZE
        )
    configure_tcl(tcl, synth)
    started = time.time()
    # Under the target's own key (Allo's run has ended): the lens, the progress's Cancel and
    # `$/cancelRequest` cancel a target by it, whichever of the two processes runs.
    tool = await manager.run_tool(target.key, argv, project, spec.env, synth.timeout_s, _Phases(), progress)
    with open(os.path.join(project, "vitis.log"), "w", encoding="utf-8") as f:
        f.write(tool.log)  # kept with the project, for the user to read
    result = _judge(tool, project, started, target.name)
    details = result.of_kind(SYNTHESIZE).details
    details.project, details.log = project, tool.log[-DETAIL_LIMIT:]
    result.duration_s = round(generated.duration_s + tool.duration_s, 3)
    result.backend, result.target = "allo", target.name
    return result


async def synthesize_point(
    manager: JobManager, target: Target, design: Constants, point: Point, config: JobConfig, synth: SynthConfig
) -> JobResult:
    """One point of a sweep, locally or in its Slurm task: its constants applied to the design's
    text (`design`, read once for every point; never the user's file), analysed off the event
    loop, synthesized with its clock and part in place of the run's."""
    from allo_lsp.analysis import analyze  # on demand, as the sweep's

    text = design.applied(point.constants)
    model = (await asyncio.to_thread(analyze, text)).model  # the editor keeps answering meanwhile
    settings = replace(synth, clock_ns=point.clock_ns or synth.clock_ns, part=point.part or synth.part)
    return await synthesize(manager, target, model, config, settings, source=text)


def _judge(tool, project: str, started: float, name: str) -> JobResult:
    if tool.cancelled:
        return JobResult("cancelled", None, "cancelled")
    if tool.timed_out:
        return JobResult(TIMEOUT, "timeout", "Vitis HLS did not finish in time; its process group was killed")
    messages = scan_log(tool.log)
    errors = [m for m in messages if m.severity in ("ERROR", "CRITICAL WARNING")]
    try:
        path = find_report(project)
        fresh = os.path.getmtime(path) >= started - 1  # written by this run, not left over
    except (ReportError, OSError):
        path, fresh = None, False
    if failed(messages) or tool.returncode != 0 or not fresh:
        if errors:
            message = "; ".join(_describe(m) for m in errors[:3])
        elif tool.returncode not in (0, None):
            message = f"Vitis HLS exited with status {tool.returncode}"
        else:
            message = "Vitis HLS wrote no csynth.xml in this run"
        return JobResult(FAILED, SYNTHESIS, message, details=SynthesisDetails(errors=[_describe(m) for m in errors]))
    try:
        report = parse_report(str(path))
    except ReportError as exc:
        return JobResult(ERROR, SYNTHESIS, f"the synthesis report cannot be read: {exc}")
    return JobResult(
        PASSED,
        None,
        f"{name} synthesized",
        artifact=str(path),
        details=SynthesisDetails(report=report.to_json(), report_markdown=format_markdown(report)),
    )


def _describe(m) -> str:
    code = f" [{m.tool} {m.code}]" if m.tool else ""
    return f"{m.severity}{code} {m.message}".strip()


KEPT_REPORTS = 1  # a region's newest synthesis project (the report before it is kept as JSON: previous_reports.py)


def keep_reports(history: list[JobResult], outcome: JobResult) -> None:
    """`outcome` added to a region's synthesis `history` (oldest first) if it has a report; older
    synthesis projects are removed, and so is the project of a synthesis without a report:
    nothing in the editor leads to it (`allo-lsp synth` keeps it and prints where it is)."""
    details = details_as(outcome.details, SynthesisDetails)
    if details.report is None:
        job_dir = details.job_dir or os.path.dirname(details.project or "")
        if os.path.basename(job_dir).startswith("allo-lsp-job-"):
            shutil.rmtree(job_dir, ignore_errors=True)
        return
    history.append(outcome)
    while len(history) > KEPT_REPORTS:
        shutil.rmtree(
            os.path.dirname(details_as(history.pop(0).details, SynthesisDetails).project or "/nonexistent"),
            ignore_errors=True,
        )
