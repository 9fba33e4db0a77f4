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
from dataclasses import dataclass, field, replace

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
    slack,
    time_ns,
    value,
)


def parse_rpt(text: str, source: str = "") -> Report:
    head = {
        "version": _match(r"\*\s*Version:\s*(\S+)", text),
        "part": _match(r"\*\s*Target device:\s*(\S+)", text),
        "top": _title(text),
        "source": source,
    }
    lines = text.splitlines()
    summary = _find(lines, lambda line: "& Loops" in line)
    if summary is not None:
        return Report(**head, **_summary(lines, summary, head["version"] or ""))
    if "== Performance Estimates" in text:
        return Report(**head, **_detailed(lines))
    raise ReportError(f"{source or '<text>'}: not a Vitis HLS report (neither csynth.xml nor a csynth.rpt)")


@dataclass
class _Row:
    """A row of a table of modules and loops, before the loops under it are read."""

    make: type  # Module or Loop
    figures: dict
    loops: list[_Row] = field(default_factory=list)

    def made(self) -> Module | Loop:
        return self.make(**self.figures, loops=tuple(row.made() for row in self.loops))


def _summary(lines: list[str], at: int, version: str) -> dict:
    """The report's figures from the summary table: its first module row is the top's."""
    names, rows = _table(lines, at)
    negate = version.startswith("2020.")
    stack: list[tuple[int, _Row]] = []
    modules: list[_Row] = []
    loose: list[_Row] = []  # loops under no module: the top module's, once there is one
    slack_ns = None
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
            item = _Row(
                Loop,
                {
                    "name": name,
                    "trip_count": value(row.get("Trip Count")),
                    "latency": latency,
                    "iteration_latency": value(row.get("Iteration Latency")),
                    "ii": value(row.get("Interval")),
                    "pipelined": row.get("Pipelined", "").strip() in ("yes", "dataflow"),
                    "latency_ns": time_ns(row.get("Latency (ns)")),
                },
            )
            (parent.loops if parent is not None else loose).append(item)
        else:
            low, high = (latency.min, latency.max) if isinstance(latency, Range) else (latency, latency)
            item = _Row(
                Module,
                {
                    "name": name,
                    "latency": Latency(best=low, worst=high),
                    "depth": depth,
                    "interval": interval_of(value(row.get("Interval"))),
                    "resources": _used(row),
                    "latency_ns": time_ns(row.get("Latency (ns)")),
                },
            )
            if not modules:  # the first row is the top module
                loose = item.loops
                slack_ns = number(row.get("Slack"))
                slack_ns = -slack_ns if negate and is_number(slack_ns) else slack_ns
            modules.append(item)
        stack.append((depth, item))
    made = tuple(row.made() for row in modules)
    if not made:
        return {"loops": tuple(row.made() for row in loose)}
    top = made[0]
    return {
        "clock": Clock(slack_ns=slack_ns),
        "latency": top.latency,
        "interval": top.interval,
        "resources": top.resources,
        "latency_ns": top.latency_ns,
        "loops": top.loops,
        "modules": made,
    }


def _used(row: dict[str, str]) -> Resources:
    """`"976 (1%)"` -> used 976; `-` in a module row means none used. The summary prints no availability."""
    used = {}
    for header, cell in row.items():
        name = resource_name(header)
        if name:
            used[name] = 0 if cell.strip() == "-" else number(cell.split("(")[0])
    return resources(used, {})


def _detailed(lines: list[str]) -> dict:
    found: dict = {}
    timing = _after(lines, "+ Timing")
    if timing:
        names, rows = timing
        row = dict(zip(names, rows[0])) if rows else {}
        clock = Clock(
            target_ns=_ns(row.get("Target")),
            uncertainty_ns=_ns(row.get("Uncertainty")),
            estimated_ns=_ns(row.get("Estimated")),
        )
        found["clock"] = replace(clock, slack_ns=slack(clock))
    latency = _after(lines, "+ Latency")
    if latency and latency[1]:
        # Latency min/max, absolute min/max (2019.2+ only), interval min/max, pipeline type.
        cells = latency[1][0] + [""] * 7  # a cut-off row reads as unknowns
        absolute = len(latency[1][0]) >= 7
        low, high = (cells[4], cells[5]) if absolute else (cells[2], cells[3])
        found["latency"] = Latency(best=number(cells[0]), worst=number(cells[1]))
        found["interval"] = Range(number(low), number(high))
        found["latency_ns"] = make_range(time_ns(cells[2]), time_ns(cells[3])) if absolute else None
    found["loops"] = _detailed_loops(lines)
    found["resources"] = _utilization(lines)
    return found


def _detailed_loops(lines: list[str]) -> tuple[Loop, ...]:
    at = _find(lines, lambda line: "Loop Name" in line)
    if at is None:
        return ()
    top: list[_Row] = []
    stack: list[_Row] = []
    for cells in _table(lines, at)[1]:
        # Name, latency min, max, iteration latency, II achieved, II target, trip count, pipelined.
        depth, name = _loop_name(cells[0])
        if len(cells) < 8 or not name:
            continue
        loop = _Row(
            Loop,
            {
                "name": name,
                "latency": make_range(number(cells[1]), number(cells[2])),
                "iteration_latency": value(cells[3]),
                "ii": number(cells[4]),
                "trip_count": value(cells[6]),
                "pipelined": cells[7].strip() == "yes",
            },
        )
        del stack[depth:]
        (stack[-1].loops if stack else top).append(loop)
        stack.append(loop)
    return tuple(row.made() for row in top)


def _loop_name(cell: str) -> tuple[int, str]:
    """`- outer` (depth 0), `+ inner` (1), `++ innermost` (2): the depth and the name."""
    cell = cell.strip()
    if cell.startswith("-"):
        return 0, cell[1:].strip()
    name = cell.lstrip("+")
    return len(cell) - len(name), name.strip()


def _utilization(lines: list[str]) -> Resources:
    start = _find(lines, lambda line: "== Utilization Estimates" in line)
    at = _find(lines, lambda line: re.match(r"\s*\|\s*Name\s*\|", line) is not None, start or 0)
    if start is None or at is None:
        return Resources()
    names, rows = _table(lines, at)
    used: dict = {}
    available: dict = {}
    for cells in rows:
        label = cells[0].strip()
        if label not in ("Total", "Available"):
            continue
        for column, cell in zip(names, cells):
            name = resource_name(column)
            if name:
                (used if label == "Total" else available)[name] = number(cell)
    return resources(used, available)


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
