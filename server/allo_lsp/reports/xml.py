"""`csynth.xml` (and per-module `<module>_csynth.xml`), Vivado HLS 2018.x to Vitis HLS 2023.x.

What differs between versions, and how it is read here:
- Values: numbers, `undef`, `"a ~ b"` strings (2022+) or a `<range><min/><max/></range>` child.
- Resources: `DSP48E` before 2019.2 (reported as `DSP`); element order varies, so they are read by name.
- Loops: every loop is an element named after the loop, nested as the loops are, and the same name
  can repeat under one parent (2023.2), so loops are read in document order, never by tag lookup.
  2022+ adds a `<Name>` child, which wins over the tag.
- Modules: 2022+ writes `ModuleInformation` (one entry per module, with its own latency, interval,
  resources and loops; pipelined loops live in their outlined `*_Pipeline_*` module) and
  `RTLDesignHierarchy` (who instantiates whom). Modules are listed in hierarchy pre-order, top first.
  Older reports have neither: `project.load` then reads the per-module files beside `csynth.xml`,
  and failing that the top module is the report's own top-level figures.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from xml.parsers import expat

from .model import (
    Clock,
    Latency,
    Loop,
    Module,
    Range,
    Report,
    ReportError,
    Resources,
    interval_of,
    is_number,
    make_range,
    number,
    resource_name,
    resources,
    scaled,
    slack,
    time_ns,
    value,
)

# Deeper than any design (loops in loops, modules instantiating modules): past it, not a report.
MAX_NESTING = 100
# expat's errors where the text ends before the XML does, which a writer cut short leaves.
_CUT_SHORT = {
    expat.errors.codes[m]
    for m in (
        expat.errors.XML_ERROR_NO_ELEMENTS,
        expat.errors.XML_ERROR_UNCLOSED_TOKEN,
        expat.errors.XML_ERROR_PARTIAL_CHAR,
    )
}
# Billion laughs: expat (2.4+) refuses entities that expand the input past a factor.
_EXPANSION = expat.errors.codes[expat.errors.XML_ERROR_AMPLIFICATION_LIMIT_BREACH]

# Children of a loop element that describe it; any other child with children of its own is a sub-loop.
LOOP_FIELDS = {
    "Name",
    "Slack",
    "TripCount",
    "Latency",
    "AbsoluteTimeLatency",
    "IterationLatency",
    "PipelineII",
    "PipelineDepth",
    "PipelineType",
    "InstanceList",
    "DataflowPipelineThroughput",
}


def parse_xml(text: str | bytes, source: str = "") -> Report:
    where = source or "<text>"
    head = (text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text)[:200]
    head = head.lstrip("\ufeff \t\r\n")
    if not head:
        raise ReportError(f"{where}: empty file, not a report")
    if not head.startswith("<"):
        raise ReportError(f"{where}: not XML (it starts with {head.splitlines()[0][:40]!r})")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ReportError(_malformed(where, exc, text)) from None
    except (ValueError, RecursionError) as exc:
        raise ReportError(f"{where}: unreadable XML: {exc}") from None
    if root.tag != "profile":
        raise ReportError(f"{where}: not a Vitis HLS synthesis report (root element <{root.tag}>, expected <profile>)")
    return _report(root, source, where)


def _malformed(where: str, exc: ET.ParseError, text: str | bytes) -> str:
    line, column = exc.position
    at = f"line {line}, column {column + 1}"
    if exc.code == _EXPANSION:
        return f"{where}: entities that expand past expat's limit at {at} (a Vitis report declares none): refused"
    reason = str(exc).split(":")[0]
    if exc.code in _CUT_SHORT and line >= len(text.splitlines()):  # at the end: the writer was cut short
        reason = f"{reason}; the file ends before the XML does (truncated?)"
    return f"{where}: malformed XML at {at}: {reason}"


def _report(root: ET.Element, source: str, where: str) -> Report:
    user = root.find("UserAssignments")
    perf = root.find("PerformanceEstimates")
    timing = perf.find("SummaryOfTimingAnalysis") if perf is not None else None
    overall = perf.find("SummaryOfOverallLatency") if perf is not None else None
    scale = _unit_ns(_text(user, "unit"))
    clock = Clock(
        target_ns=_ns(_text(user, "TargetClockPeriod"), scale),
        uncertainty_ns=_ns(_text(user, "ClockUncertainty"), scale),
        estimated_ns=_ns(_text(timing, "EstimatedClockPeriod"), _unit_ns(_text(timing, "unit"))),
    )
    explicit = number(_text(timing, "Slack"))  # a top-level <Slack> wins over the arithmetic
    slack_ns = slack(clock) if explicit is None else float(explicit) if is_number(explicit) else explicit
    area = root.find("AreaEstimates")
    info = root.find("ModuleInformation")
    return Report(
        version=_text(root, "ReportVersion/Version"),
        part=_text(user, "Part"),
        top=_text(user, "TopModelName"),
        clock=replace(clock, slack_ns=slack_ns),
        latency=_latency(overall),
        interval=_interval(overall),
        resources=_resources(
            area.find("Resources") if area is not None else None,
            area.find("AvailableResources") if area is not None else None,
        ),
        modules=_modules(info, root.find("RTLDesignHierarchy"), where) if info is not None else (),
        loops=_loops(perf.find("SummaryOfLoopLatency") if perf is not None else None, where),
        latency_ns=time_ns(_text(overall, "Worst-caseRealTimeLatency")),
        source=source,
    )


def top_module(report: Report, depth: int = 0) -> Module:
    """The report's own top-level figures as a module (for reports without ModuleInformation)."""
    return Module(
        name=report.top or "?",
        latency=report.latency,
        interval=report.interval,
        resources=report.resources,
        loops=report.loops,
        depth=depth,
        latency_ns=report.latency_ns,
    )


def _modules(info: ET.Element, hierarchy: ET.Element | None, where: str) -> tuple[Module, ...]:
    by_name = {}
    for element in info.findall("Module"):
        module = _module(element, where)
        by_name.setdefault(module.name, module)
    order = _preorder(hierarchy.find("TopModule"), where) if hierarchy is not None else {}
    # Modules the hierarchy does not mention (it is cut at MAX_DEPTH) follow, in report order.
    names = [n for n in order if n in by_name] + [n for n in by_name if n not in order]
    return tuple(replace(by_name[n], depth=order.get(n, 1)) for n in names)


def _preorder(top: ET.Element | None, where: str) -> dict[str, int]:
    """Each module's depth, in the hierarchy's pre-order."""
    seen: dict[str, int] = {}
    stack = [(top, 0)] if top is not None else []
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ReportError(f"{where}: the module hierarchy nested more than {MAX_NESTING} deep: not a Vitis report")
        name = _text(node, "ModuleName")
        if name and name not in seen:  # a module instantiated twice is listed where it first appears
            seen[name] = depth
        stack.extend((instance, depth + 1) for instance in reversed(node.findall("InstancesList/Instance")))
    return seen


def _module(element: ET.Element, where: str) -> Module:
    perf = element.find("PerformanceEstimates")
    overall = perf.find("SummaryOfOverallLatency") if perf is not None else None
    interval = value(_text(overall, "PipelineInitiationInterval"))
    resources = element.find("AreaEstimates/Resources")
    return Module(
        name=_text(element, "Name") or "?",
        latency=_latency(overall),
        interval=interval_of(interval),
        resources=_resources(resources, resources, available_prefix="AVAIL_"),
        loops=_loops(perf.find("SummaryOfLoopLatency") if perf is not None else None, where),
        latency_ns=time_ns(_text(overall, "Worst-caseRealTimeLatency")),
    )


def _latency(overall: ET.Element | None) -> Latency:
    return Latency(
        best=_value(overall, "Best-caseLatency"),
        average=_value(overall, "Average-caseLatency"),
        worst=_value(overall, "Worst-caseLatency"),
    )


def _interval(overall: ET.Element | None) -> Range:
    low, high = _value(overall, "Interval-min"), _value(overall, "Interval-max")
    # Either end can itself be a range; the interval spans both.
    return Range(low.min if isinstance(low, Range) else low, high.max if isinstance(high, Range) else high)


def _resources(used: ET.Element | None, available: ET.Element | None, available_prefix: str = "") -> Resources:
    """Top level: <Resources> and <AvailableResources>. ModuleInformation: X beside AVAIL_<short X>."""
    used_of: dict = {}
    for element in list(used) if used is not None else []:
        name = resource_name(element.tag)
        if name:
            used_of.setdefault(name, number(element.text))
    available_of: dict = {}
    for element in list(available) if available is not None else []:
        tag = element.tag
        if available_prefix:
            if not tag.startswith(available_prefix):
                continue
            tag = tag[len(available_prefix) :]
        name = resource_name(tag)
        if name:
            available_of[name] = number(element.text)
    return resources(used_of, available_of)


def _loops(parent: ET.Element | None, where: str) -> tuple[Loop, ...]:
    if parent is None:
        return ()
    return tuple(_loop(child, where, 1) for child in parent if _is_loop(child))


def _is_loop(element: ET.Element) -> bool:
    return element.tag not in LOOP_FIELDS and len(element) > 0


def _loop(element: ET.Element, where: str, depth: int) -> Loop:
    if depth > MAX_NESTING:
        raise ReportError(f"{where}: loops nested more than {MAX_NESTING} deep: not a Vitis report")
    kind = (_text(element, "PipelineType") or "").lower()
    ii = _value(element, "PipelineII")
    if ii is None:  # a dataflow loop's initiation interval is its dataflow throughput
        ii = _value(element, "DataflowPipelineThroughput")
    iteration = _value(element, "IterationLatency")
    if iteration is None:  # for a pipelined loop the .rpt prints the depth as the iteration latency
        iteration = _value(element, "PipelineDepth")
    return Loop(
        name=_text(element, "Name") or element.tag,
        trip_count=_value(element, "TripCount"),
        latency=_value(element, "Latency"),
        iteration_latency=iteration,
        ii=ii,
        # 2022+ says so (`yes`, `dataflow`, `no`); older reports only give a PipelineII to pipelined loops.
        pipelined=kind in ("yes", "dataflow") if kind else _value(element, "PipelineII") is not None,
        loops=tuple(_loop(child, where, depth + 1) for child in element if _is_loop(child)),
        latency_ns=time_ns(_text(element, "AbsoluteTimeLatency")),
    )


def _value(parent: ET.Element | None, path: str):
    element = parent.find(path) if parent is not None else None
    if element is None:
        return None
    bounds = element.find("range")
    if bounds is not None:
        return make_range(number(_text(bounds, "min")), number(_text(bounds, "max")))
    return value(element.text)


def _text(parent: ET.Element | None, path: str) -> str | None:
    element = parent.find(path) if parent is not None else None
    if element is None or element.text is None:
        return None
    return element.text.strip() or None


def _unit_ns(unit: str | None) -> float:
    return {"ps": 1e-3, "us": 1e3, "ms": 1e6}.get((unit or "ns").strip(), 1.0)


def _ns(text: str | None, scale: float):
    return scaled(number(text), scale)


def read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot read: {exc.strerror or exc}") from None
