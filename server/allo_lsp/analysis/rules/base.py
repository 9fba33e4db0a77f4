"""What a rule sees and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from allo_lsp.analysis.model import FileModel, Range
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.selection import Selection

# Past this many characters only a prefix of the file is analysed (ADF901): analysis takes
# about 2 s per 100,000 characters of design code, and no real design file comes near it.
MAX_ANALYSED_CHARS = 512 * 1024  # above the 10,000-line designs the benchmarks use (about 290 KB)


@dataclass(frozen=True)
class Options:
    """Analysis settings. `allo_build`: `auto` (unknown), `fixed` or `legacy`. `max_chars`: the
    size bound, in characters, past which only the statements before it are analysed.
    `omp_threads`: the OpenMP threads the user asked for (`alloDataflow.ompThreads`), 0 for none."""

    allo_build: str = "auto"
    max_chars: int = MAX_ANALYSED_CHARS
    # What the file shows of the problems (the project's `[tool.allo-lsp]`, its noqa comments).
    selection: Selection = Selection()
    omp_threads: int = 0


@dataclass(frozen=True)
class Finding:
    range: Range
    message: str
    data: dict = field(default_factory=dict)
    # The rule's own severity unless given: a finding that holds for another target only
    # (ADF005 on a region built for the simulator) is information.
    severity: Severity | None = None


@dataclass(frozen=True)
class Context:
    model: FileModel
    options: Options


def legacy_hazard_severity(options: Options):
    """Hazards of older builds: errors for users on one, information for users on a fixed one."""
    from allo_lsp.analysis.problems import Severity

    return {"legacy": Severity.ERROR, "fixed": Severity.INFORMATION}.get(options.allo_build, Severity.WARNING)
