"""Code lenses and the matching code actions: run what the user points at.

Above each module-level region: Simulate, Synthesize and MLIR (and Report and Files once
synthesized: the report view, and the HLS project, `vitis.log` and `kernel.cpp`);
above each module-level function that builds a region (a test): Run. After a job, its lens shows
the outcome ("✓ passed 1.4 s", "⚙ 1,208 cycles · II 1,003 · LUT 52% · 5.3 ns"). Above each
kernel of more than one PE: its active PE ("◎ PE (1, 2) of 6x6", issue 30), which picks one
(the client's quick pick, then `alloDataflow/activePe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Range
from allo_lsp.ide.outcomes import cluster_title, lens_title_after
from allo_lsp.ide.synthesis import synthesis_files
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.messages import MLIR, RUN, SIMULATE, SYNTHESIZE, JobResult
from allo_lsp.protocol.vocabulary import PICK_PE

REPORT = "report"  # the synthesis report view (a lens once a synthesis passed)
PE = "pe"  # a kernel's active PE (`ide/active_pe.py`): its lens's command is the client's picker

FILES = "files"  # what that synthesis kept (a lens beside Report)
# A running job's lens cancels it; running the target again while it runs starts nothing.
CANCEL = "alloDataflow.cancelJob"
COMMANDS = {
    SIMULATE: "alloDataflow.simulate",
    RUN: "alloDataflow.run",
    MLIR: "alloDataflow.showMlir",
    SYNTHESIZE: "alloDataflow.synthesize",
    REPORT: "alloDataflow.showReport",
    FILES: "alloDataflow.showSynthesisFiles",
}
_LABELS = {
    SIMULATE: "▶ Simulate",
    RUN: "▶ Run",
    MLIR: "MLIR",
    SYNTHESIZE: "⚙ Synthesize",
    REPORT: "Report",
    FILES: "Files",
}
_ACTION_TITLES = {
    SIMULATE: "Simulate region '{}'",
    RUN: "Run test '{}'",
    MLIR: "Show MLIR of region '{}'",
    SYNTHESIZE: "Synthesize region '{}' (Vitis HLS)",
}


@dataclass(frozen=True)
class Lens:
    range: Range
    title: str
    command: str
    name: str  # the region or function
    kind: str
    kernel: str | None = None  # a PE lens's kernel (of the region `name`)


def runnable(analysis: Analysis) -> list[tuple[Range, str, str]]:
    """(range of the name, name, kind) of everything a lens can run, in source order."""
    out = []
    for region in analysis.model.regions:
        if not region.scope_path:
            # From the decorator: VS Code draws a lens above its range's first line (on the name
            # it sat between `@df.region()` and the `def`).
            above = Range(region.decorator_range.start, region.range.end)
            out += [(above, region.name, k) for k in (SIMULATE, SYNTHESIZE, MLIR)]
    for function in analysis.model.functions:
        if analysis.model.builds_in(function.name):
            out.append((function.range, function.name, RUN))
    return sorted(out, key=lambda t: t[0].start)


def code_lenses(
    analysis: Analysis,
    outcomes: dict[tuple[str, str], JobResult],
    running: set[tuple[str, str]] | dict,
    active: Mapping[tuple[str, str], tuple[int, ...]] | None = None,
) -> list[Lens]:
    """`running`: the jobs running, or a dict of them to the cluster state of those on a cluster;
    `active`: the kernels' active PEs (`pe_lenses`)."""
    lenses = []
    for rng, name, kind in runnable(analysis):
        title, command = _LABELS[kind], COMMANDS[kind]
        if (name, kind) in running:
            state = running.get((name, kind)) if isinstance(running, dict) else None
            title = "⏳ running… (click to cancel)" if state is None else cluster_title(state)
            command = CANCEL
        elif (name, kind) in outcomes:
            title = lens_title_after(title, kind, outcomes[(name, kind)])
        lenses.append(Lens(rng, title, command, name, kind))
        if (
            kind == SYNTHESIZE
            and (name, kind) in outcomes
            and details_as(outcomes[(name, kind)].details, SynthesisDetails).report
        ):
            lenses.append(Lens(rng, _LABELS[REPORT], COMMANDS[REPORT], name, REPORT))
            if synthesis_files(outcomes[(name, kind)]):
                lenses.append(Lens(rng, _LABELS[FILES], COMMANDS[FILES], name, FILES))
    lenses += pe_lenses(analysis, active or {})
    return sorted(lenses, key=lambda lens: lens.range.start)  # stable: a target's lenses keep their order


def pe_lenses(analysis: Analysis, active: Mapping[tuple[str, str], tuple[int, ...]]) -> list[Lens]:
    """A lens above each kernel of more than one PE of a module-level region: its active PE
    (`active`: (region, kernel) -> the chosen PE's pid), or how many it has."""
    out = []
    for region in analysis.model.regions:
        if region.scope_path:
            continue
        for k in region.kernels:
            if (k.pe_count or 0) < 2 or not k.instance_names:
                continue
            grid = "x".join(str(m) for m in k.mapping or ())
            pid = active.get((region.name, k.name))
            title = (
                f"◎ PE ({', '.join(map(str, pid))}) of {grid}"
                if pid is not None
                else f"◎ PE: all {k.pe_count} of {grid}"
            )
            out.append(Lens(Range(k.decorator_range.start, k.range.end), title, PICK_PE, region.name, PE, k.name))
    return out


def run_actions(analysis: Analysis, line: int) -> list[tuple[str, str, str]]:
    """(title, command, name) for the lens targets whose definition contains `line`: the same
    jobs, for editors without code lenses."""
    out = []
    model = analysis.model
    for region in model.regions:
        if not region.scope_path and region.def_range.start.line <= line <= region.def_range.end.line:
            out += [
                (_ACTION_TITLES[k].format(region.name), COMMANDS[k], region.name) for k in (SIMULATE, SYNTHESIZE, MLIR)
            ]
    for function in model.functions:
        if function.def_range.start.line <= line <= function.def_range.end.line and model.builds_in(function.name):
            out.append((_ACTION_TITLES[RUN].format(function.name), COMMANDS[RUN], function.name))
    return out
