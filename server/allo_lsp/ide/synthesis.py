"""Synthesis figures where the design is: the region's lens, and each kernel's PEs.

Works on the report as `allo-lsp report --format json` prints it. A PE's module keeps its
instance name (`gemm_0_1`), which is how a report row maps back to a kernel.
"""

from __future__ import annotations

import posixpath

from allo_lsp.analysis.model import Kernel
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.messages import JobResult


def _number(value) -> float | None:
    if isinstance(value, dict):  # a range: the worst case is what a user plans for
        value = value.get("max", value.get("min"))
    return value if isinstance(value, (int, float)) else None


def _figure(value) -> str:
    n = _number(value)
    return "?" if n is None else f"{n:,.0f}" if float(n).is_integer() else f"{n:,.3g}"


def lens_title(report: dict) -> str:
    """`⚙ 1,208 cycles · II 1,003 · LUT 52% · 5.3 ns` (worst-case latency, slowest interval)."""
    latency = report.get("latency", {})
    cycles = latency.get("worst") if latency.get("worst") is not None else latency.get("best")
    interval = report.get("interval", {})
    ii = interval.get("max") if interval.get("max") is not None else interval.get("min")
    lut = report.get("resources", {}).get("LUT", {}).get("percent")
    clock = report.get("clock", {}).get("estimated_ns")
    parts = [f"⚙ {_figure(cycles)} cycles", f"II {_figure(ii)}"]
    if lut is not None:
        parts.append(f"LUT {lut:g}%")
    if clock is not None:
        parts.append(f"{clock:g} ns")
    return " · ".join(parts)


def timing_violation(report: dict) -> str | None:
    clock = report.get("clock", {})
    slack = clock.get("slack_ns")
    if slack is None or slack >= 0:
        return None
    return (
        f"Timing violated: estimated clock {clock.get('estimated_ns')} ns against a target of "
        f"{clock.get('target_ns')} ns (uncertainty {clock.get('uncertainty_ns')} ns), slack {slack:g} ns"
    )


def pe_modules(report: dict, kernel: Kernel) -> list[dict]:
    """The report's modules of this kernel's PEs, in PE order."""
    by_name = {m["name"]: m for m in report.get("modules", [])}
    return [by_name[name] for name in kernel.instance_names if name in by_name]


def kernel_markdown(report: dict, kernel: Kernel) -> str | None:
    modules = pe_modules(report, kernel)
    if not modules:
        return None
    lines = [
        "",
        "Synthesis (Vitis HLS):",
        "",
        "| PE | latency | II | LUT | FF | DSP | BRAM_18K |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    for m in modules:
        res = m.get("resources", {})
        used = [_figure(res.get(r, {}).get("used")) for r in ("LUT", "FF", "DSP", "BRAM_18K")]
        lat, ii = m.get("latency", {}), m.get("interval", {})
        lines.append(
            f"| `{m['name']}` | {_range(lat.get('best'), lat.get('worst'))} | {_range(ii.get('min'), ii.get('max'))} | "
            + " | ".join(used)
            + " |"
        )
    return "\n".join(lines)


def kernel_hint(report: dict, kernel: Kernel) -> str | None:
    modules = pe_modules(report, kernel)
    if not modules:
        return None
    worst = max(
        (_number(m.get("latency", {}).get("worst")) or _number(m.get("latency", {}).get("best")) or 0) for m in modules
    )
    return f"⚙ {_figure(worst)} cycles"


def _range(a, b) -> str:
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


def change_markdown(old: dict, new: dict) -> str:
    """The headline figures that changed between two reports, as a markdown table."""
    from allo_lsp.reports import delta  # on demand: not before the first diagnostics

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
