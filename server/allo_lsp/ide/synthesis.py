"""Synthesis figures where the design is: the region's lens, and each kernel's PEs.

Reads the typed report (`protocol/report.py`); a job's details carry its JSON
(`SynthesisDetails.report`), which `typed` reads once at each entry. A PE's module keeps its
instance name (`gemm_0_1`), which is how a report row maps back to a kernel.
"""

from __future__ import annotations

import posixpath

from allo_lsp.analysis.model import Kernel
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.messages import JobResult
from allo_lsp.protocol.report import RESOURCES, Module, Report, Value, decoded, given, known, worst

AnyReport = Report | dict  # typed, or its JSON as a job's details carry it


def typed(report: AnyReport | None) -> Report | None:
    """The report typed; None when there is none or its JSON is no report's."""
    return report if isinstance(report, Report) or report is None else decoded(report)


def _figure(value: Value) -> str:
    n = worst(value)  # a range: the worst case is what a user plans for
    return "?" if n is None else f"{n:,.0f}" if float(n).is_integer() else f"{n:,.3g}"


def lens_title(report: AnyReport) -> str:
    """`⚙ 1,208 cycles · II 1,003 · LUT 52% · 5.3 ns` (worst-case latency, slowest interval)."""
    report = typed(report) or Report()
    latency, interval = report.latency, report.interval
    cycles = latency.worst if given(latency.worst) is not None else latency.best
    ii = interval.max if given(interval.max) is not None else interval.min
    lut = report.resources.lut.percent if report.resources.lut is not None else None
    clock = known(report.clock.estimated_ns)
    parts = [f"⚙ {_figure(cycles)} cycles", f"II {_figure(ii)}"]
    if lut is not None:
        parts.append(f"LUT {lut:g}%")
    if clock is not None:
        parts.append(f"{clock:g} ns")
    return " · ".join(parts)


def timing_violation(report: AnyReport) -> str | None:
    clock = (typed(report) or Report()).clock
    slack = known(clock.slack_ns)
    if slack is None or slack >= 0:
        return None
    return (
        f"Timing violated: estimated clock {known(clock.estimated_ns)} ns against a target of "
        f"{known(clock.target_ns)} ns (uncertainty {known(clock.uncertainty_ns)} ns), slack {slack:g} ns"
    )


def pe_modules(report: AnyReport, kernel: Kernel) -> list[Module]:
    """The report's modules of this kernel's PEs, in PE order."""
    by_name = {m.name: m for m in (typed(report) or Report()).modules}
    return [by_name[name] for name in kernel.instance_names if name in by_name]


def kernel_markdown(report: AnyReport, kernel: Kernel) -> str | None:
    modules = pe_modules(report, kernel)
    if not modules:
        return None
    lines = [
        "",
        "Synthesis (Vitis HLS):",
        "",
        f"| PE | latency | II | {' | '.join(RESOURCES)} |",
        "|---|" + "--:|" * (2 + len(RESOURCES)),
    ]
    for m in modules:
        used = [_figure(m.resources[r].used if r in m.resources else None) for r in RESOURCES]
        lat, ii = m.latency, m.interval
        lines.append(
            f"| `{m.name}` | {_range(lat.best, lat.worst)} | {_range(ii.min, ii.max)} | " + " | ".join(used) + " |"
        )
    return "\n".join(lines)


def kernel_hint(report: AnyReport, kernel: Kernel) -> str | None:
    modules = pe_modules(report, kernel)
    if not modules:
        return None
    cycles = max((worst(m.latency.worst) or worst(m.latency.best) or 0) for m in modules)
    return f"⚙ {_figure(cycles)} cycles"


def _range(a: Value, b: Value) -> str:
    a, b = given(a), given(b)
    if a == b or b is None:
        return _figure(a)
    return f"{_figure(a)} ~ {_figure(b)}"


NO_REPORT = "No synthesis report for '{}' yet: run ⚙ Synthesize first."


def synthesis_files(outcome: JobResult) -> list[tuple[str, str]]:
    """(label, path) of what a synthesis that wrote a report keeps for the user: the HLS project,
    Vitis' log and the C++ Allo generated (a synthesis without a report keeps no project)."""
    details = details_as(outcome.details, SynthesisDetails)
    if not (details.report and details.project):
        return []
    project = details.project
    return [("HLS project", project)] + [(name, posixpath.join(project, name)) for name in ("vitis.log", "kernel.cpp")]


def report_view(name: str, newest: JobResult | None, previous: dict | None) -> dict:
    """What the report view of a region shows: its newest report (the JSON of `allo-lsp report
    --format json`, and as markdown) and the report of the run before (`previous`, None when
    none is kept), with the change since written under the markdown."""
    if newest is None:
        return {"markdown": NO_REPORT.format(name)}
    details = details_as(newest.details, SynthesisDetails)
    markdown = details.report_markdown or ""
    if previous is not None and details.report is not None:
        markdown += change_markdown(previous, details.report)
    return {"markdown": markdown, "report": details.report, "previous": previous, "files": file_links(newest)}


def file_links(outcome: JobResult | None) -> list[dict]:
    """`synthesis_files` as the report view and the Files lens give them to the editor: each with
    whether it is the project's folder (opened as a folder, not a file)."""
    if outcome is None:
        return []
    project = details_as(outcome.details, SynthesisDetails).project
    return [{"label": k, "path": p, "folder": p == project} for k, p in synthesis_files(outcome)]


def change_markdown(old: AnyReport, new: AnyReport) -> str:
    """The headline figures that changed between two reports, as a markdown table ("" when
    either is no report)."""
    from allo_lsp.reports import delta  # on demand: not before the first diagnostics

    old, new = typed(old), typed(new)
    if old is None or new is None:
        return ""
    changed = {k: v for k, v in delta(old, new).items() if v["old"] != v["new"]}
    rows = ["", "### Change since the previous run", ""]
    if changed:
        rows += ["| figure | before | now | change |", "|---|--:|--:|--:|"]
        rows += [
            f"| {k} | {v['old']} | {v['new']} | {v['change'] if v['change'] is not None else '—'} |"
            for k, v in changed.items()
        ]
    else:
        rows.append("No figure changed.")
    return "\n".join(rows) + "\n"
