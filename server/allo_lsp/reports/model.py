"""The figures of a synthesis report as plain dataclasses, and the value grammar every version uses.

A figure is a `Value`: a number, `None` (the report says `undef`, `?`, `-` or leaves it out), a
`Range` (the report gives a minimum and a maximum), or an `UnreadableFigure` (the report writes a
number no figure can be: 400 digits, `1e999`, `nan`). Cycles stay cycles; times are nanoseconds.
An unreadable figure is that figure's problem alone: the JSON gives it as null and lists it under
`unreadable`, the tables print `unreadable`, every other figure stands.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# The five resources, in the order every table prints them. `DSP48E` (Vivado HLS 2019.1 and older)
# is the same column as `DSP`.
RESOURCES = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")
RESOURCE_ALIASES = {"DSP48E": "DSP", "DSP48": "DSP", "BRAM": "BRAM_18K"}

UNKNOWN = {"", "undef", "?", "-", "n/a", "na", "none"}
# No synthesis figure comes near this; below it every product the figures take part in (a
# percentage, a time unit) stays a finite float.
LARGEST = 1e100
SHOWN = 40  # characters of an unreadable figure's text kept
TIME_UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}


class ReportError(Exception):
    """The report is missing, unreadable or not a Vitis HLS report; the message says which and why."""


@dataclass(frozen=True)
class UnreadableFigure:
    """A figure whose text is no number a report figure can be; `text` is what the report wrote
    (its first `SHOWN` characters)."""

    text: str


@dataclass(frozen=True)
class Range:
    min: Number | UnreadableFigure | None
    max: Number | UnreadableFigure | None


Number = int | float
Value = int | float | Range | UnreadableFigure | None


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class Resource:
    used: Number | UnreadableFigure | None
    available: Number | UnreadableFigure | None

    @property
    def percent(self) -> float | None:
        # 0 available (URAM on most Zynq-7000 parts) is "nothing to use", not a division by zero.
        if not is_number(self.used) or not is_number(self.available):
            return None
        if self.available <= 0:
            return None
        percent = round(100.0 * self.used / self.available, 2)
        return percent if math.isfinite(percent) else None  # 1e100 used of 1e-300 available


@dataclass
class Clock:
    target_ns: float | UnreadableFigure | None = None
    uncertainty_ns: float | UnreadableFigure | None = None
    estimated_ns: float | UnreadableFigure | None = None
    slack_ns: float | UnreadableFigure | None = None


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
        """The JSON schema; each unreadable figure is null in its place and listed, with that
        place, under `unreadable` (present only when one is)."""
        out = _Json()
        data = {
            "version": self.version,
            "part": self.part,
            "top": self.top,
            "clock": {
                name: out.value(getattr(self.clock, name), f"clock.{name}")
                for name in ("target_ns", "uncertainty_ns", "estimated_ns", "slack_ns")
            },
            "latency": out.latency(self.latency, "latency"),
            "interval": out.value(self.interval, "interval"),
            "resources": out.resources(self.resources, "resources"),
            "modules": [
                {
                    "name": m.name,
                    "latency": out.latency(m.latency, f"modules[{i}].latency"),
                    "interval": out.value(m.interval, f"modules[{i}].interval"),
                    "resources": out.resources(m.resources, f"modules[{i}].resources"),
                    "loops": out.loops(m.loops, f"modules[{i}].loops"),
                }
                for i, m in enumerate(self.modules)
            ],
            "loops": out.loops(self.loops, "loops"),
        }
        if out.unreadable:
            data["unreadable"] = out.unreadable
        return data


class _Json:
    """The JSON of figures, noting where each unreadable one was."""

    def __init__(self) -> None:
        self.unreadable: list[dict] = []

    def value(self, value: Value, where: str):
        if isinstance(value, Range):
            return {"min": self.value(value.min, f"{where}.min"), "max": self.value(value.max, f"{where}.max")}
        if isinstance(value, UnreadableFigure):
            self.unreadable.append({"figure": where, "text": value.text})
            return None
        return value

    def latency(self, latency: Latency, where: str) -> dict:
        return {k: self.value(getattr(latency, k), f"{where}.{k}") for k in ("best", "average", "worst")}

    def resources(self, resources: dict[str, Resource], where: str) -> dict:
        return {
            name: {
                "used": self.value(r.used, f"{where}.{name}.used"),
                "available": self.value(r.available, f"{where}.{name}.available"),
                "percent": r.percent,
            }
            for name, r in resources.items()
        }

    def loops(self, loops: list[Loop], where: str) -> list[dict]:
        return [self.loop(loop, f"{where}[{i}]") for i, loop in enumerate(loops)]

    def loop(self, loop: Loop, where: str) -> dict:
        return {
            "name": loop.name,
            **{
                k: self.value(getattr(loop, k), f"{where}.{k}")
                for k in ("trip_count", "latency", "iteration_latency", "ii")
            },
            "pipelined": loop.pipelined,
            "loops": self.loops(loop.loops, f"{where}.loops"),
        }


def number(text: str | None) -> Number | UnreadableFigure | None:
    """`"12"` -> 12, `"16.694"` -> 16.694, `undef`/`?`/`-`/garbage -> None; a number beyond
    `LARGEST` (400 digits, `1e999`) or `nan` -> UnreadableFigure."""
    text = (text or "").strip().replace(",", "")
    if text.lower() in UNKNOWN:
        return None
    try:
        amount = int(text)
    except ValueError:  # also past Python's 4,300 digits: then float() says inf
        try:
            amount = float(text)
        except ValueError:
            return None
    return amount if abs(amount) <= LARGEST else unreadable(text)  # nan compares False too


def unreadable(text: str) -> UnreadableFigure:
    shown = text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"
    return UnreadableFigure(shown)


def value(text: str | None) -> Value:
    """A cycle count that may be a `"a ~ b"` range (2022+ writes ranges inline)."""
    return _split_range(text, number)


def time_ns(text: str | None) -> Value:
    """An absolute time in ns: bare numbers are ns (2020.2, per-module files), `"12.080 us"` has a unit."""
    return _split_range(text, _one_time)


def _one_time(text: str) -> float | UnreadableFigure | None:
    # Stripped first, and the number never ends in the unit's `e`: classes that cannot overlap keep
    # it linear (`1eee...` retried the e's as the unit from each of them). A number ending in `e`
    # is none, and no unit starts with `e`: the same answers.
    match = re.fullmatch(r"([-+0-9.eE]*[-+0-9.E])\s*([a-z\u00b5]*)", (text or "").strip())
    if not match or match[2] not in TIME_UNITS and match[2] != "":
        return None
    return scaled(number(match[1]), TIME_UNITS.get(match[2], 1.0))


def scaled(amount: Number | UnreadableFigure | None, scale: float) -> float | UnreadableFigure | None:
    """A number in another unit (rounded as the reports print); unknown and unreadable kept."""
    return round(float(amount) * scale, 6) if is_number(amount) else amount


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
    if not all(is_number(p) for p in parts):
        return None
    return round(clock.target_ns - clock.uncertainty_ns - clock.estimated_ns, 3)
