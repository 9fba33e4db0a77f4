"""`csynth.rpt`, the text summary: enough for the top-level timing, latency and resources.

Every pattern here is linear in the line it reads (no two quantifiers over the same characters
side by side): a report is text anyone can write.

Two layouts exist:
- the Vitis summary (`csynth.rpt`, 2020.2+): one "Modules & Loops" table whose rows are `+ module`,
  `o loop` (`*` dataflow), nested by indentation, with a Slack column but no clock figures. 2020.x
  prints that slack negated (the 2020.2 fixture shows -0.87 where target - uncertainty - estimated is
  +0.873; 2022.2 and 2023.2 print it with the right sign).
- the detailed report (Vivado HLS `csynth.rpt`, Vitis `<module>_csynth.rpt`): Timing, Latency and
  Utilization tables, loops as `|- outer` / `| + inner`; unknown values are `?`, ranges are min/max columns.
"""

from __future__ import annotations

import re

from .model import (
    Clock,
    Latency,
    Loop,
    Module,
    Range,
    Report,
    ReportError,
    Resource,
    interval_of,
    is_number,
    make_range,
    number,
    ordered,
    resource_name,
    slack,
    time_ns,
    value,
)


def parse_rpt(text: str, source: str = "") -> Report:
    report = Report(
        version=_match(r"\*\s*Version:\s*(\S+)", text),
        part=_match(r"\*\s*Target device:\s*(\S+)", text),
        top=_title(text),
        source=source,
    )
    lines = text.splitlines()
    summary = _find(lines, lambda line: "& Loops" in line)
    if summary is not None:
        _summary(lines, summary, report)
    elif "== Performance Estimates" in text:
        _detailed(lines, report)
    else:
        raise ReportError(f"{source or '<text>'}: not a Vitis HLS report (neither csynth.xml nor a csynth.rpt)")
    return report


def _summary(lines: list[str], at: int, report: Report) -> None:
    names, rows = _table(lines, at)
    negate = (report.version or "").startswith("2020.")
    stack: list[tuple[int, Module | Loop]] = []
    for cells in rows:
        row = dict(zip(names, cells))
        match = re.match(r"( *)([+o*]) (.+)", row.get("Modules & Loops", ""))
        if not match:
            continue
        depth, kind, name = len(match[1]), match[2], match[3].strip()
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else None
        latency = value(row.get("Latency (cycles)"))
        if kind == "o":
            item = Loop(
                name=name,
                trip_count=value(row.get("Trip Count")),
                latency=latency,
                iteration_latency=value(row.get("Iteration Latency")),
                ii=value(row.get("Interval")),
                pipelined=row.get("Pipelined", "").strip() in ("yes", "dataflow"),
                latency_ns=time_ns(row.get("Latency (ns)")),
            )
            (parent.loops if parent is not None else report.loops).append(item)
        else:
            low, high = (latency.min, latency.max) if isinstance(latency, Range) else (latency, latency)
            item = Module(
                name=name,
                latency=Latency(best=low, worst=high),
                depth=depth,
                interval=interval_of(value(row.get("Interval"))),
                resources=_used(row),
                latency_ns=time_ns(row.get("Latency (ns)")),
            )
            report.modules.append(item)
            if len(report.modules) == 1:  # the first row is the top module
                report.latency, report.interval, report.resources = item.latency, item.interval, item.resources
                report.latency_ns, report.loops = item.latency_ns, item.loops
                slack_ns = number(row.get("Slack"))
                report.clock.slack_ns = -slack_ns if negate and is_number(slack_ns) else slack_ns
        stack.append((depth, item))


def _used(row: dict[str, str]) -> dict[str, Resource]:
    """`"976 (1%)"` -> used 976; `-` in a module row means none used. The summary prints no availability."""
    found = {}
    for header, cell in row.items():
        name = resource_name(header)
        if name:
            found[name] = Resource(0 if cell.strip() == "-" else number(cell.split("(")[0]), None)
    return ordered(found)


def _detailed(lines: list[str], report: Report) -> None:
    timing = _after(lines, "+ Timing")
    if timing:
        names, rows = timing
        row = dict(zip(names, rows[0])) if rows else {}
        report.clock = Clock(
            target_ns=_ns(row.get("Target")),
            uncertainty_ns=_ns(row.get("Uncertainty")),
            estimated_ns=_ns(row.get("Estimated")),
        )
        report.clock.slack_ns = slack(report.clock)
    latency = _after(lines, "+ Latency")
    if latency and latency[1]:
        # Latency min/max, absolute min/max (2019.2+ only), interval min/max, pipeline type.
        cells = latency[1][0] + [""] * 7  # a cut-off row reads as unknowns
        absolute = len(latency[1][0]) >= 7
        low, high = (cells[4], cells[5]) if absolute else (cells[2], cells[3])
        report.latency = Latency(best=number(cells[0]), worst=number(cells[1]))
        report.interval = Range(number(low), number(high))
        report.latency_ns = make_range(time_ns(cells[2]), time_ns(cells[3])) if absolute else None
    report.loops = _detailed_loops(lines)
    report.resources = _utilization(lines)


def _detailed_loops(lines: list[str]) -> list[Loop]:
    at = _find(lines, lambda line: "Loop Name" in line)
    if at is None:
        return []
    top: list[Loop] = []
    stack: list[Loop] = []
    for cells in _table(lines, at)[1]:
        # Name, latency min, max, iteration latency, II achieved, II target, trip count, pipelined.
        depth, name = _loop_name(cells[0])
        if len(cells) < 8 or not name:
            continue
        loop = Loop(
            name=name,
            latency=make_range(number(cells[1]), number(cells[2])),
            iteration_latency=value(cells[3]),
            ii=number(cells[4]),
            trip_count=value(cells[6]),
            pipelined=cells[7].strip() == "yes",
        )
        del stack[depth:]
        (stack[-1].loops if stack else top).append(loop)
        stack.append(loop)
    return top


def _loop_name(cell: str) -> tuple[int, str]:
    """`- outer` (depth 0), `+ inner` (1), `++ innermost` (2): the depth and the name."""
    cell = cell.strip()
    if cell.startswith("-"):
        return 0, cell[1:].strip()
    name = cell.lstrip("+")
    return len(cell) - len(name), name.strip()


def _utilization(lines: list[str]) -> dict[str, Resource]:
    start = _find(lines, lambda line: "== Utilization Estimates" in line)
    at = _find(lines, lambda line: re.match(r"\s*\|\s*Name\s*\|", line) is not None, start or 0)
    if start is None or at is None:
        return {}
    names, rows = _table(lines, at)
    found: dict[str, Resource] = {}
    for cells in rows:
        label = cells[0].strip()
        if label not in ("Total", "Available"):
            continue
        for column, cell in zip(names, cells):
            name = resource_name(column)
            if name:
                resource = found.setdefault(name, Resource(None, None))
                if label == "Total":
                    resource.used = number(cell)
                else:
                    resource.available = number(cell)
    return ordered(found)


def _after(lines: list[str], title: str):
    """The first table after the line that starts with `title`."""
    start = _find(lines, lambda line: line.strip().startswith(title))
    if start is None:
        return None
    at = _find(lines, lambda line: line.strip().startswith("|"), start)
    return _table(lines, at) if at is not None and at < start + 8 else None


def _table(lines: list[str], at: int) -> tuple[list[str], list[list[str]]]:
    """The column names and body rows of the ASCII table whose header contains line `at`.

    A header can take two lines ("Latency" over "(cycles)"); their cells are joined. When the lines
    split differently ("Latency" over "min | max"), the last line's names are kept, and the caller
    reads the row by position.
    """
    start = at
    while start > 0 and lines[start - 1].strip().startswith("|"):
        start -= 1
    end = at
    while end < len(lines) and lines[end].strip().startswith("|"):
        end += 1
    header = [_cells(line) for line in lines[start:end]]
    if all(len(cells) == len(header[-1]) for cells in header):
        names = [" ".join(" ".join(column).split()) for column in zip(*header)]
    else:
        names = [" ".join(c.split()) for c in header[-1]]
    rows = []
    for line in lines[end:]:
        stripped = line.strip()
        if stripped.startswith("+-"):
            continue
        if not stripped.startswith("|"):
            break
        rows.append(_cells(line))
    return names, rows


def _cells(line: str) -> list[str]:
    body = line.strip()[1:]
    return (body[:-1] if body.endswith("|") else body).split("|")


def _find(lines: list[str], test, start: int = 0) -> int | None:
    return next((i for i in range(start, len(lines)) if test(lines[i])), None)


_TITLE = re.compile(r"Report (?:of|for) '([^'\n]+)'")


def _title(text: str) -> str | None:
    """The top's name in the first `== ... Report of 'top'` line."""
    for line in text.splitlines():
        start = line.find("== ")
        match = _TITLE.search(line, start + 3) if start >= 0 else None
        if match:
            return match[1]
    return None


def _match(pattern: str, text: str) -> str | None:
    match = re.search(pattern, text)
    return match[1] if match else None


def _ns(cell: str | None):
    amount = time_ns(cell)
    return float(amount) if is_number(amount) else None if isinstance(amount, Range) else amount
