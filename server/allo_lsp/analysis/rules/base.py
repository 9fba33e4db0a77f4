"""What a rule sees and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from allo_lsp.analysis.model import FileModel, Range


@dataclass(frozen=True)
class Options:
    """Analysis settings. `allo_build`: `auto` (unknown), `fixed` or `legacy`."""

    allo_build: str = "auto"


@dataclass(frozen=True)
class Finding:
    range: Range
    message: str
    data: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Context:
    model: FileModel
    options: Options


def legacy_hazard_severity(options: Options):
    """Hazards of older builds: errors for users on one, information for users on a fixed one."""
    from allo_lsp.analysis.problems import Severity

    return {"legacy": Severity.ERROR, "fixed": Severity.INFORMATION}.get(options.allo_build, Severity.WARNING)
