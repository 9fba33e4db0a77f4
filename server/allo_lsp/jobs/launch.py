"""From "simulate region `top` of this file" to a `JobSpec`, using what the analysis knows.

The analysis gives the inputs' types and shapes and the PE count (for OMP_NUM_THREADS); the
settings give the interpreter and LLVM_BUILD_DIR, both checked before anything starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from allo_lsp.analysis.model import FileModel, Region
from allo_lsp.jobs.environment import (
    JobConfig,
    SetupError,
    check_llvm_build_dir,
    job_environment,
    omp_threads,
    resolve_python,
)
from allo_lsp.jobs.manager import JobSpec
from allo_lsp.protocol.job_values import name_error
from allo_lsp.protocol.messages import ALLO_ERROR, MLIR, RUN, SIMULATE, SYNTHESIZE, UNSUPPORTED, ArgSpec, JobRequest

BACKENDS = ("auto", "allo", "reference")


class DesignError(SetupError):
    """The job cannot start because of the design (what Allo would reject at build), at `line`
    (1-based): a design error, not a broken environment."""

    def __init__(self, message: str, line: int | None = None, cause: str = ALLO_ERROR) -> None:
        super().__init__(message)
        self.line = line
        self.cause = cause


@dataclass(frozen=True)
class Target:
    file: str
    name: str
    kind: str  # SIMULATE, RUN, MLIR, PROBE
    # The editor's document (its URI as the client wrote it): two URIs of one file are two
    # documents for the client, so their jobs are two jobs.
    uri: str = ""
    trace: int = 0  # a simulate or run job on the reference executor: the first values kept per PE and FIFO

    @property
    def key(self) -> str:
        return f"{self.uri or self.file}::{self.name}::{self.kind}"


def prepare(target: Target, model: FileModel, config: JobConfig, backend: str = "auto", seed: int = 0) -> JobSpec:
    """A ready-to-run job, or SetupError with what to fix. Nothing is started here."""
    if backend not in BACKENDS:
        raise SetupError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if (why := unknown_target(model, target.name, target.kind)) is not None:
        raise SetupError(why)
    python = resolve_python(config.python)
    args: list[ArgSpec] = []
    if target.kind in (SIMULATE, MLIR, SYNTHESIZE):
        region = model.module_region(target.name)
        pe_count = region.pe_count
        if target.kind == SIMULATE:
            args = arg_specs(region)
    elif target.kind == RUN:
        pe_count = _pes_of_function(model, target.name)
    else:
        pe_count = None
    llvm = None
    if target.kind in (SIMULATE, RUN) and backend != "reference":
        try:
            llvm = check_llvm_build_dir(config.llvm_build_dir or os.environ.get("LLVM_BUILD_DIR", ""))
        except SetupError:
            if backend == "allo":
                raise
            backend = "reference"  # auto: no usable LLVM build, so not the real simulator
    omp = omp_threads(config, pe_count)
    request = JobRequest(
        kind=target.kind,
        file=os.path.abspath(target.file),
        target=target.name,
        backend=backend,
        seed=seed,
        args=args,
        options={"trace": target.trace} if target.trace and target.kind in (SIMULATE, RUN) else {},
    )
    return JobSpec(
        key=target.key,
        request=request,
        python=python,
        env=job_environment(config, omp, llvm),
        timeout_s=config.timeout_s,
        omp_threads=omp,
        pe_count=pe_count,
    )


def unknown_target(model: FileModel, name: object, kind: str) -> str | None:
    """Why `name` is not what a `kind` job of the file (`model`) runs, or None: a module-level
    function for `run`, a module-level region for the others. The one check of a job's name, on
    every path (the editor's commands and sweeps, the command line, the cluster) before anything
    runs or is written: a name that passes is an identifier of the file, safe in a directory's
    name, a batch script or a message."""
    if (why := name_error(name)) is not None:
        return why
    if kind == RUN:
        if model.function(name) is None:
            return f"no module-level function named '{name}' in this file: `run` runs a test function"
        return None
    if model.module_region(name) is not None:
        return None
    nested = [r for r in model.regions if r.name == name]
    if nested:
        return (
            f"region '{name}' is defined inside {nested[0].scope_path[-1]}(): run that function instead "
            "(a region inside a function exists only while it runs)"
        )
    return f"no region named '{name}' in this file"


def arg_specs(region: Region) -> list[ArgSpec]:
    specs = []
    for p in region.params:
        t = p.type
        line = p.range.start.line + 1
        if t is None or not t.fully_resolved:
            raise DesignError(
                f"cannot make an input for '{p.name}': its type ({p.annotation or 'missing'}) does not "
                "fold to a constant shape here; write a test function that builds and calls the region",
                line,
                UNSUPPORTED,
            )
        if t.is_scalar:
            raise DesignError(f"'{p.name}' is a bare scalar (ADF001): declare it {p.annotation}[1] first", line)
        specs.append(ArgSpec(p.name, t.dtype.numpy, list(t.shape), p.direction.value))  # type: ignore[arg-type]
    return specs


def _pes_of_function(model: FileModel, function: str) -> int | None:
    """PEs of the regions defined in (or built by) a function: the most that run at once."""
    counts = [r.pe_count for r in model.regions if function in r.scope_path]
    counts = [c for c in counts if c is not None]
    if not counts:
        counts = [r.pe_count for r in model.regions if r.pe_count is not None]
    return max(counts) if counts else None
