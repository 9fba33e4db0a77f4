"""The figures of a synthesis report as plain dataclasses, and the value grammar every version uses.

A figure is a `Value`: a number, `None` (the report says `undef`, `?`, `-` or leaves it out), or a
`Range` (the report gives a minimum and a maximum). Cycles stay cycles; times are nanoseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# The five resources, in the order every table prints them. `DSP48E` (Vivado HLS 2019.1 and older)
# is the same column as `DSP`.
RESOURCES = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")
RESOURCE_ALIASES = {"DSP48E": "DSP", "DSP48": "DSP", "BRAM": "BRAM_18K"}

UNKNOWN = {"", "undef", "?", "-", "n/a", "na", "none"}
TIME_UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}


class ReportError(Exception):
    """The report is missing, unreadable or not a Vitis HLS report; the message says which and why."""


@dataclass(frozen=True)
class Range:
    min: Number | None
    max: Number | None


Number = int | float
Value = int | float | Range | None


@dataclass
class Resource:
    used: Number | None
    available: Number | None

    @property
    def percent(self) -> float | None:
        # 0 available (URAM on most Zynq-7000 parts) is "nothing to use", not a division by zero.
        if not isinstance(self.used, (int, float)) or not isinstance(self.available, (int, float)):
            return None
        if self.available <= 0:
            return None
        return round(100.0 * self.used / self.available, 2)


@dataclass
class Clock:
    target_ns: float | None = None
    uncertainty_ns: float | None = None
    estimated_ns: float | None = None
    slack_ns: float | None = None


@dataclass
class Latency:
    best: Value = None
    average: Value = None
    worst: Value = None


@dataclass
class Loop:
    name: str
    trip_count: Value = None
    latency: Value = None
    iteration_latency: Value = None
    ii: Value = None
    pipelined: bool = False
    loops: list[Loop] = field(default_factory=list)
    latency_ns: Value = None  # absolute latency; shown in the tables, not part of the JSON schema


@dataclass
class Module:
    name: str
    latency: Latency = field(default_factory=Latency)
    interval: Range = field(default_factory=lambda: Range(None, None))
    resources: dict[str, Resource] = field(default_factory=dict)
    loops: list[Loop] = field(default_factory=list)
    depth: int = 0  # place in the design hierarchy (0 = top), for drawing the tree
    latency_ns: Value = None


@dataclass
class Report:
    version: str | None = None
    part: str | None = None
    top: str | None = None
    clock: Clock = field(default_factory=Clock)
    latency: Latency = field(default_factory=Latency)
    interval: Range = field(default_factory=lambda: Range(None, None))
    resources: dict[str, Resource] = field(default_factory=dict)
    modules: list[Module] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    latency_ns: Value = None
    source: str = ""  # the file it was read from ("" for text)

    def to_json(self) -> dict:
        return {
            "version": self.version,
            "part": self.part,
            "top": self.top,
            "clock": {
                "target_ns": self.clock.target_ns,
                "uncertainty_ns": self.clock.uncertainty_ns,
                "estimated_ns": self.clock.estimated_ns,
                "slack_ns": self.clock.slack_ns,
            },
            "latency": _latency_json(self.latency),
            "interval": json_value(self.interval),
            "resources": _resources_json(self.resources),
            "modules": [
                {
                    "name": m.name,
                    "latency": _latency_json(m.latency),
                    "interval": json_value(m.interval),
                    "resources": _resources_json(m.resources),
                    "loops": [_loop_json(l) for l in m.loops],
                }
                for m in self.modules
            ],
            "loops": [_loop_json(l) for l in self.loops],
        }


def json_value(value: Value):
    return {"min": value.min, "max": value.max} if isinstance(value, Range) else value


def _latency_json(latency: Latency) -> dict:
    return {
        "best": json_value(latency.best),
        "average": json_value(latency.average),
        "worst": json_value(latency.worst),
    }


def _resources_json(resources: dict[str, Resource]) -> dict:
    return {name: {"used": r.used, "available": r.available, "percent": r.percent} for name, r in resources.items()}


def _loop_json(loop: Loop) -> dict:
    return {
        "name": loop.name,
        "trip_count": json_value(loop.trip_count),
        "latency": json_value(loop.latency),
        "iteration_latency": json_value(loop.iteration_latency),
        "ii": json_value(loop.ii),
        "pipelined": loop.pipelined,
        "loops": [_loop_json(l) for l in loop.loops],
    }


def number(text: str | None) -> Number | None:
    """`"12"` -> 12, `"16.694"` -> 16.694, `undef`/`?`/`-`/garbage -> None."""
    text = (text or "").strip().replace(",", "")
    if text.lower() in UNKNOWN:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def value(text: str | None) -> Value:
    """A cycle count that may be a `"a ~ b"` range (2022+ writes ranges inline)."""
    return _split_range(text, number)


def time_ns(text: str | None) -> Value:
    """An absolute time in ns: bare numbers are ns (2020.2, per-module files), `"12.080 us"` has a unit."""
    return _split_range(text, _one_time)


def _one_time(text: str) -> float | None:
    match = re.fullmatch(r"\s*([-+0-9.eE]+)\s*([a-z\u00b5]*)\s*", text or "")
    if not match or match[2] not in TIME_UNITS and match[2] != "":
        return None
    amount = number(match[1])
    return None if amount is None else round(float(amount) * TIME_UNITS.get(match[2], 1.0), 6)


def _split_range(text: str | None, one) -> Value:
    if text is not None and "~" in text:
        low, _, high = text.partition("~")
        return make_range(one(low), one(high))
    return one(text)


def make_range(low: Value, high: Value) -> Value:
    """A range whose ends agree is just that number."""
    if low == high:
        return low
    return Range(low, high)


def interval_of(value: Value) -> Range:
    """An interval is always shown as {min, max}, also when the report gives one number."""
    return value if isinstance(value, Range) else Range(value, value)


def resource_name(tag: str) -> str | None:
    name = RESOURCE_ALIASES.get(tag, tag)
    return name if name in RESOURCES else None


def ordered(resources: dict[str, Resource]) -> dict[str, Resource]:
    return {name: resources[name] for name in RESOURCES if name in resources}


def slack(clock: Clock) -> float | None:
    """Target - uncertainty - estimated: what the .rpt prints (2020.2 prints it negated)."""
    parts = (clock.target_ns, clock.uncertainty_ns, clock.estimated_ns)
    if any(p is None for p in parts):
        return None
    return round(clock.target_ns - clock.uncertainty_ns - clock.estimated_ns, 3)
