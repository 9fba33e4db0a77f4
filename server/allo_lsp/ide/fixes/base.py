"""What a fix returns, how it says it does not apply, and how it finds what a problem names."""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Kernel, Region
from allo_lsp.ide.types import TextEdit


class Unavailable(Exception):
    """The fix does not apply to this text (odd syntax, stale analysis): no action is offered."""


@dataclass(frozen=True)
class Fix:
    title: str
    edits: list[TextEdit]
    # Safe, as Ruff means it: the code means and does what it did, callers included, and keeps
    # its intent; `allo-lsp check --fix` and the editor's fix-all apply only these (unsafe ones
    # with `--unsafe-fixes`). Unmarked is unsafe: a fix has to be judged to be applied unasked.
    safe: bool = False
    # Offered in the editor, never applied by fix-all, even with unsafe fixes (Ruff's
    # display-only fixes): the fix rests on what only the user knows (which order a call whose
    # arguments do not tell was written for), and its title says what it assumed.
    display_only: bool = False


def region_of(model: FileModel, problem: Problem) -> Region:
    """The region the problem names, disambiguated by position: two test functions may each
    define a region `top`."""
    name = problem.data.get("region")
    for region in model.regions:
        if region.name == name and region.def_range.contains(problem.range.start):
            return region
    raise Unavailable(f"no region {name!r} around the problem")


def kernel_of(region: Region, name: str | None) -> Kernel:
    kernel = region.kernel(name) if name else None
    if kernel is None:
        raise Unavailable(f"no kernel {name!r} in region {region.name!r}")
    return kernel


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
