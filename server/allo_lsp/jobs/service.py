"""One entry point for the command line and the editor: run this target of this file."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import FileModel
from allo_lsp.jobs.environment import JobConfig, SetupError
from allo_lsp.jobs.launch import DesignError, Target, prepare, unknown_target
from allo_lsp.jobs.manager import JobManager, Progress
from allo_lsp.jobs.reproducer import reproducer
from allo_lsp.mlir import PROBE_SOURCE, reorders_arguments
from allo_lsp.mlir.probe import PROBE_REGION
from allo_lsp.protocol.job_values import name_error
from allo_lsp.protocol.messages import (
    ALLO_ERROR,
    ENVIRONMENT,
    ERROR,
    LIBRARY_BUG,
    PASSED,
    PROBE,
    RUN,
    SIMULATE,
    JobResult,
)


def target_of(model: FileModel, file: str, name: str) -> Target:
    """A module-level region is simulated; a module-level function is run (`allo-lsp run`)."""
    for kind in (SIMULATE, RUN):
        if unknown_target(model, name, kind) is None:
            return Target(file, name, kind)
    raise SetupError(name_error(name) or f"no module-level region or function named '{name}' in {file}")


async def run_target(
    manager: JobManager,
    target: Target,
    model: FileModel,
    config: JobConfig,
    backend: str = "auto",
    seed: int = 0,
    progress: Progress = lambda phase: None,
    source: str | None = None,
) -> JobResult:
    """`source`: the editor's text of the file, when it may differ from what is on disk."""
    try:
        spec = prepare(target, model, config, backend, seed)
        spec.request.source = source
    except DesignError as exc:
        return JobResult(ERROR, exc.cause, str(exc), target.file, exc.line, target=target.name, backend=backend)
    except SetupError as exc:
        return JobResult(ERROR, ENVIRONMENT, str(exc), target=target.name, backend=backend)
    result = await manager.run(spec, progress)
    if result.cause == ALLO_ERROR:
        locate_allo_error(result, model, target.file)
    if result.cause == LIBRARY_BUG:
        text = source if source is not None else Path(target.file).read_text(encoding="utf-8", errors="replace")
        result.reproducer = reproducer(text, model, target.name, result.message)
    return result


_QUOTED = re.compile(r"'(\w+)'|\b(\w+) do not match (\w+)")


def locate_allo_error(result: JobResult, model: FileModel, file: str) -> None:
    """Point an Allo build error at the kernel or parameter it names (its messages quote them)."""
    names = [n for groups in _QUOTED.findall(result.message) for n in groups if n]
    for region in model.regions:
        for kernel in region.kernels:
            for kp in kernel.params:
                if kp.name in names:
                    result.file, result.line = file, kp.range.start.line + 1
                    return
            if kernel.name in names:
                result.file, result.line = file, kernel.decorator_range.start.line + 1
                return
        for p in region.params:
            if p.name in names:
                result.file, result.line = file, p.range.start.line + 1
                return


async def probe(manager: JobManager, config: JobConfig) -> str | None:
    """Which build: "legacy" if the configured Allo compiles top arguments in kernel order, "fixed" if in
    declaration order, None if it could not tell. Runs our own probe design, never user code."""
    return build_of(await probe_outcome(manager, config))


async def probe_outcome(manager: JobManager, config: JobConfig) -> JobResult:
    """The probe job's outcome: our own probe design compiled by the configured Allo."""
    with tempfile.TemporaryDirectory(prefix="allo-lsp-probe-") as directory:
        path = os.path.join(directory, "allo_lsp_probe.py")
        Path(path).write_text(PROBE_SOURCE, encoding="utf-8")
        return await run_target(manager, Target(path, PROBE_REGION, PROBE), analyze(PROBE_SOURCE).model, config)


def build_of(outcome: JobResult) -> str | None:
    """What the probe's outcome says of the Allo build (as `probe`)."""
    if outcome.status != PASSED:
        return None
    reorders = reorders_arguments(outcome.details.artifact_text or "", outcome.details)  # the runner's reading
    return None if reorders is None else ("legacy" if reorders else "fixed")
