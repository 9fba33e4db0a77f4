"""A report as a terminal table or as markdown (hover, job summary), and the change between two runs."""

from __future__ import annotations

from allo_lsp.protocol.report import json_value

from .model import RESOURCES, Latency, Loop, Module, Range, Report, UnreadableFigure, Value, is_number

UNREADABLE = "unreadable"  # a figure the report writes as no number can be (model.UnreadableFigure)

BAR_WIDTH = 10
TREE_HEADERS = (
    "Modules & loops",
    "Latency",
    "Time",
    "Interval/II",
    "Trip count",
    "Pipelined",
    *RESOURCES,
)


def format_text(report: Report) -> str:
    lines = [_title(report), ""]
    lines += [f"{label:<10}{text}" for label, text in _summary(report)]
    if report.resources:
        lines += ["", *_text_table(("Resource", "Used", "Available", "Utilisation"), _resource_rows(report))]
    tree = _tree_rows(report, indent="  ")
    if tree:
        lines += ["", *_text_table(TREE_HEADERS, tree)]
    return "\n".join(lines)


def format_markdown(report: Report) -> str:
    lines = [f"### {_title(report)}", "", "| Figure | Value |", "|---|---|"]
    lines += [f"| {label} | {text} |" for label, text in _summary(report)]
    if report.resources:
        lines += ["", *_md_table(("Resource", "Used", "Available", "Utilisation"), _resource_rows(report))]
        lines += ["", "```text", *_bars(report), "```"]
    tree = _tree_rows(report, indent="\u00a0\u00a0")  # markdown tables drop plain leading spaces
    if tree:
        lines += ["", *_md_table(TREE_HEADERS, tree)]
    return "\n".join(lines)


def delta(old: Report | dict, new: Report | dict) -> dict[str, dict]:
    """Each headline figure of two runs: {figure: {old, new, change}}, each figure as the JSON
    writes it; change is None unless both are numbers. A run is its Report or that report's JSON
    (`Report.to_json`: what the editor keeps of a run before; MalformedReport if it is not one);
    the resources are those either run has."""
    old, new = (r if isinstance(r, Report) else Report.from_json(r) for r in (old, new))
    before, now = _headline(old), _headline(new)
    names = [n for n in now if n not in RESOURCES or n in old.resources or n in new.resources]
    return {n: {"old": before[n], "new": now[n], "change": _change(before[n], now[n])} for n in names}


def _headline(report: Report) -> dict:
    latency, interval, clock = report.latency, report.interval, report.clock
    figures = {f"latency_{k}": getattr(latency, k) for k in ("best", "average", "worst")}
    figures |= {f"interval_{k}": getattr(interval, k) for k in ("min", "max")}
    figures |= {k: getattr(clock, k) for k in ("estimated_ns", "slack_ns")}
    resources = report.resources
    figures |= {name: resources[name].used if name in resources else None for name in RESOURCES}
    return {name: json_value(figure) for name, figure in figures.items()}


def _change(a, b) -> float | int | None:
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
        return round(b - a, 6)
    return None


def _title(report: Report) -> str:
    version = f"HLS {report.version}" if report.version else "HLS"
    return f"{report.top or '?'} ({version}, {report.part or 'unknown part'})"


def _summary(report: Report) -> list[tuple[str, str]]:
    c = report.clock
    clock = (
        f"target {_ns(c.target_ns)}, uncertainty {_ns(c.uncertainty_ns)}, "
        f"estimated {_ns(c.estimated_ns)}, slack {_ns(c.slack_ns)}"
    )
    if is_number(c.slack_ns) and c.slack_ns < 0:
        clock += "  TIMING VIOLATED"
    time = ""
    if report.latency_ns is not None:  # the report's absolute time is the worst case
        worst = "" if report.latency.best == report.latency.worst else "worst "
        time = f" ({worst}{_time(report.latency_ns)})"
    return [
        ("Clock", clock),
        ("Latency", f"{_latency(report.latency)} cycles{time}"),
        ("Interval", f"{_value(_interval(report.interval))} cycles"),
    ]


def _resource_rows(report: Report) -> list[tuple[str, ...]]:
    return [(name, _value(r.used), _value(r.available), _percent(r.percent)) for name, r in report.resources.items()]


def _bars(report: Report) -> list[str]:
    rows = []
    for name, r in report.resources.items():
        if r.percent is None:
            rows.append(f"{name:<9}{'░' * BAR_WIDTH}    -  (none available)")
            continue
        filled = min(BAR_WIDTH, round(r.percent / 100 * BAR_WIDTH))
        over = "  OVER BUDGET" if r.percent > 100 else ""
        rows.append(f"{name:<9}{'█' * filled}{'░' * (BAR_WIDTH - filled)} {_percent(r.percent):>6}{over}")
    return rows


def _tree_rows(report: Report, indent: str) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for module in report.modules:
        rows.append(_module_row(module, indent * module.depth))
        for loop in module.loops:
            _loop_rows(loop, indent * (module.depth + 1), indent, rows)
    return rows


def _module_row(module: Module, pad: str) -> tuple[str, ...]:
    resources = [_value(module.resources[n].used) if n in module.resources else "" for n in RESOURCES]
    return (
        f"{pad}+ {module.name}",
        _latency(module.latency),
        _time(module.latency_ns),
        _value(_interval(module.interval)),
        "",
        "",
        *resources,
    )


def _loop_rows(loop: Loop, pad: str, indent: str, rows: list) -> None:
    rows.append(
        (
            f"{pad}o {loop.name}",
            _value(loop.latency),
            _time(loop.latency_ns),
            _value(loop.ii),
            _value(loop.trip_count),
            "yes" if loop.pipelined else "no",
            *[""] * len(RESOURCES),
        )
    )
    for inner in loop.loops:
        _loop_rows(inner, pad + indent, indent, rows)


def _latency(latency: Latency) -> str:
    return _value(latency.best if latency.best == latency.worst else Range(latency.best, latency.worst))


def _interval(interval: Range) -> Value:
    return interval.min if interval.min == interval.max else interval


def _value(v: Value) -> str:
    if v is None:
        return "-"
    if isinstance(v, UnreadableFigure):
        return UNREADABLE
    if isinstance(v, Range):  # an unknown end of a known range reads as `?`, as in the .rpt
        return " ~ ".join("?" if end is None else _value(end) for end in (v.min, v.max))
    return f"{v:g}" if isinstance(v, float) else str(v)


def _ns(v: float | UnreadableFigure | None) -> str:
    return _value(v) if not is_number(v) else f"{v:g} ns"


def _time(v: Value) -> str:
    """Nanoseconds in the unit Vitis would print them in (`6.144 ms`)."""
    if not is_number(v) and not isinstance(v, Range):
        return _value(v)
    if isinstance(v, Range):
        return f"{_time(v.min)} ~ {_time(v.max)}"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:.3f} {unit}"
    return f"{v:.3f} ns"


def _percent(p: float | None) -> str:
    return "-" if p is None else f"{p:.0f}%" if p >= 10 else f"{p:.1f}%"


def _text_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells):
        # The first column reads left to right (names); figures line up on the right.
        out = [cells[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join(out).rstrip()

    return [line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]


def _md_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    align = ["---"] + ["--:"] * (len(headers) - 1)
    return [
        f"| {' | '.join(headers)} |",
        f"|{'|'.join(align)}|",
        *(f"| {' | '.join(c.replace('|', '/') for c in r)} |" for r in rows),
    ]
