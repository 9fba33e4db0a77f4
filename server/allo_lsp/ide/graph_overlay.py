"""What the last runs found, drawn on a region's graph (graph.py): the reference executor's FIFO
figures and deadlock on the stream edges and the blocked PEs, and the newest synthesis report's
latency, interval and resources on the kernels and PEs.

The reference run reports per stream declaration (`StreamStatistics`: a stream array's FIFOs
summed, so every edge of one declaration shows the same figures), the PEs parked when it declared
a deadlock (`Blocked`: the PE, the FIFO by element, `fifo_A[1, 2]`, its occupancy and depth) and
the depth that completes (`FifoSizing`). Keys (camelCase, the webview's JSON):

- graph `run`: `status`, `cause`, `message`, `target` (what the job ran), `deadlock` (bool)
- edge `run`: `puts`, `gets`, `maxOccupancy`, `depth`, `fifos`, `waits` (the declaration's),
  `blocked`: the waits of this edge's FIFOs that never ended, each `{"pe", "op", "fifo",
  "occupancy", "depth", "state"}` (`state` "full" on a put, "empty" on a get, "polling" for a
  try_get/try_put that never succeeds), and `sizedDepth`:
  the smallest depth of the declaration that completes (null when the diagnosis found none)
- node `run`: `blocked`: the node's PEs' parked waits, each `{"pe", "op", "fifo", "line"
  (0-based, null when unknown), "occupancy", "depth", "state"}` (a collapsed kernel collects
  its PEs'; expanded, the PEs carry their own and the kernel's group none)
- node `synthesis`: `latency` `{"best", "worst"}` cycles, `interval` `{"min", "max"}`, `resources`
  used, by name (`protocol/report.py`'s RESOURCES, in its order; null where no module gives it), `modules` (the report rows it sums: a PE is one, a
  kernel, collapsed or the group of its PEs, its PEs', whose latency and interval are the worst of
  them); only the region's own kernels (a sub-region's modules are not matched)
- graph `synthesis`: `title` (the lens' line), `latency`, `interval`, `clock` (the report's)
"""

from __future__ import annotations

import re

from allo_lsp.analysis.model import Region
from allo_lsp.ide.graph_model import Edge, Graph, Node
from allo_lsp.ide.synthesis import AnyReport, lens_title, pe_modules, typed
from allo_lsp.protocol.details import DEPTH, Blocked, FifoRun, SimulateDetails, details_as
from allo_lsp.protocol.messages import DEADLOCK, JobResult
from allo_lsp.protocol.report import RESOURCES, Module, Report, clock_json, json_value, worst

_ELEMENT = re.compile(r"(\w+)(?:\[([\d,\s]*)\])?\Z")  # `fifo_A[1, 2]`, `pipe`


def add_overlays(graph: Graph, region: Region, outcomes: list[JobResult], report: AnyReport | None) -> None:
    run = newest_run(outcomes, region.name)
    if run is not None:
        _run_overlay(graph, *run)
    report = typed(report) if report else None
    if report is not None:
        _synthesis_overlay(graph, region, report)


def newest_run(outcomes: list[JobResult], region: str) -> tuple[JobResult, SimulateDetails] | None:
    """The last outcome among `outcomes` whose reference run reports figures of `region`."""
    found = None
    for outcome in outcomes:
        details = details_as(outcome.details, SimulateDetails)
        if any(run.region == region for run in details.fifo_statistics):
            found = (outcome, details)
    return found


def element_of(fifo: str) -> tuple[str, tuple[int, ...] | None] | None:
    """`fifo_A[1, 2]` -> ("fifo_A", (1, 2)); `pipe` -> ("pipe", None)."""
    match = _ELEMENT.match(fifo.strip())
    if match is None:
        return None
    index = match.group(2)
    return match.group(1), tuple(int(i) for i in index.split(",") if i.strip()) if index is not None else None


def _run_overlay(graph: Graph, outcome: JobResult, details: SimulateDetails) -> None:
    graph.overlay["run"] = {
        "status": outcome.status,
        "cause": outcome.cause,
        "message": outcome.message,
        "target": outcome.target,
        "deadlock": outcome.cause == DEADLOCK,
    }
    figures = _figures(details.fifo_statistics)
    sized = {}
    if details.fifo_sizing is not None and details.fifo_sizing.kind == DEPTH:
        sized = {s.stream: s.depth for s in details.fifo_sizing.streams}
    blocked = [(b, element_of(b.stream)) for b in details.blocked]
    pes_of = {n.id: set(_pe_names(n)) for n in graph.nodes}
    for edge in graph.edges:
        if edge.kind != "stream" or edge.stream is None:
            continue
        stats = figures.get(edge.region, {}).get(edge.stream)
        waits = [_wait(b) for b, element in blocked if element is not None and _on_edge(edge, b, element, pes_of)]
        if stats is None and not waits:
            continue
        overlay = _statistics(stats) if stats is not None else {}
        overlay["blocked"] = waits
        overlay["sizedDepth"] = sized.get(edge.stream)
        edge.overlay = {"run": overlay}
    by_pe: dict[str, list[dict]] = {}
    for b, _ in blocked:
        by_pe.setdefault(b.pe, []).append(_wait(b, line=True))
    grouping = {n.parent for n in graph.nodes if n.kind == "pe"}  # expanded kernels: their PEs carry the waits
    for node in graph.nodes:
        names = pes_of[node.id] if node.id not in grouping else ()
        waits = [w for name in sorted(names) for w in by_pe.get(name, [])]
        if waits:
            node.overlay = {**(node.overlay or {}), "run": {"blocked": waits}}


def _figures(runs: list[FifoRun]) -> dict[str, dict]:
    """Region name -> stream -> its statistics, the last run of each region winning."""
    out: dict[str, dict] = {}
    for run in runs:
        out[run.region] = run.streams
    return out


def _statistics(stats) -> dict:
    return {
        "puts": stats.puts,
        "gets": stats.gets,
        "maxOccupancy": stats.max_occupancy,
        "depth": stats.depth,
        "fifos": stats.fifos,
        "waits": stats.waits,
    }


def _on_edge(edge: Edge, b: Blocked, element: tuple[str, tuple[int, ...] | None], pes_of: dict[str, set[str]]) -> bool:
    """Whether the parked wait `b` is on one of `edge`'s FIFOs, at the end that waits (the PE, or
    the kernel node that holds it)."""
    stream, index = element
    if stream != edge.stream or (edge.index is not None and index != edge.index):
        return False
    end = edge.source if b.op == "put" else edge.target
    return end is not None and b.pe in pes_of.get(end, ())


def _wait(b: Blocked, line: bool = False) -> dict:
    wait = {
        "pe": b.pe,
        "op": b.op,
        "fifo": b.stream,
        "occupancy": b.occupancy,
        "depth": b.depth,
        "state": "full" if b.op == "put" else "empty" if b.op == "get" else "polling",
    }
    if line:
        wait["line"] = b.line - 1 if b.line is not None else None
    return wait


def _pe_names(node: Node) -> list[str]:
    """The instance names a run calls the node's PEs by."""
    if node.kind == "pe":
        return [node.name]
    return _instances(node) if node.kind == "kernel" else []


def _instances(node: Node) -> list[str]:
    names = [node.name]
    for extent in node.mapping or ():
        if extent is None:
            return []
        names = [f"{n}_{i}" for n in names for i in range(extent)]
    return names if node.mapping else []


def _synthesis_overlay(graph: Graph, region: Region, report: Report) -> None:
    latency, interval = report.latency, report.interval
    graph.overlay["synthesis"] = {
        "title": lens_title(report),
        "latency": {"best": json_value(latency.best), "worst": json_value(latency.worst)},
        "interval": {"min": json_value(interval.min), "max": json_value(interval.max)},
        "clock": clock_json(report.clock),
    }
    modules = {m.name: m for m in report.modules}
    kernels = {k.name: k for k in region.kernels}
    for node in graph.nodes:
        if node.region != region.name:
            continue
        if node.kind == "pe" and node.name in modules:
            found = [modules[node.name]]
        elif node.kind == "kernel" and node.kernel in kernels:
            found = pe_modules(report, kernels[node.kernel])
        else:
            continue
        if found:
            node.overlay = {**(node.overlay or {}), "synthesis": _module_figures(found)}


def _module_figures(modules: list[Module]) -> dict:
    def most(figures) -> float | None:
        known = [v for v in map(worst, figures) if v is not None]
        return max(known) if known else None

    resources = {}
    for name in RESOURCES:
        used = [worst(m.resources[name].used) for m in modules if name in m.resources]
        known = [u for u in used if u is not None]
        resources[name] = sum(known) if known else None
    return {
        "latency": {"best": most(m.latency.best for m in modules), "worst": most(m.latency.worst for m in modules)},
        "interval": {"min": most(m.interval.min for m in modules), "max": most(m.interval.max for m in modules)},
        "resources": resources,
        "modules": len(modules),
    }
