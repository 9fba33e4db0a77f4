"""The value grammar every version of a synthesis report uses; the figures it makes are
`protocol/report.py`'s typed `Report` (re-exported here).

A figure is a `Value`: a number, `None` (the report says `undef`, `?`, `-` or leaves it out), a
`Range` (the report gives a minimum and a maximum), or an `UnreadableFigure` (the report writes a
number no figure can be: 400 digits, `1e999`, `nan`). Cycles stay cycles; times are nanoseconds.
An unreadable figure is that figure's problem alone: the JSON gives it as null and lists it under
`unreadable`, the tables print `unreadable`, every other figure stands.
"""

from __future__ import annotations

import re

from allo_lsp.protocol.report import (
    RESOURCES,
    Clock,
    Latency,
    Loop,
    Module,
    Number,
    Range,
    Report,
    Resource,
    Resources,
    UnreadableFigure,
    Value,
    is_number,
)

__all__ = [
    "RESOURCES",
    "Clock",
    "Latency",
    "Loop",
    "Module",
    "Number",
    "Range",
    "Report",
    "ReportError",
    "Resource",
    "Resources",
    "UnreadableFigure",
    "Value",
    "is_number",
]

# Vitis' names of the resources (`protocol/report.py`'s RESOURCES): `DSP48E` (Vivado HLS 2019.1
# and older) is the same column as `DSP`.
RESOURCE_ALIASES = {"DSP48E": "DSP", "DSP48": "DSP", "BRAM": "BRAM_18K"}

UNKNOWN = {"", "undef", "?", "-", "n/a", "na", "none"}
# No synthesis figure comes near this; below it every product the figures take part in (a
# percentage, a time unit) stays a finite float.
LARGEST = 1e100
SHOWN = 40  # characters of an unreadable figure's text kept
TIME_UNITS = {"ps": 1e-3, "ns": 1.0, "us": 1e3, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}


class ReportError(Exception):
    """The report is missing, unreadable or not a Vitis HLS report; the message says which and why."""


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


def resources(used: dict[str, Number | UnreadableFigure | None], available: dict) -> Resources:
    """Each resource either dict names (by `resource_name`), its percentage computed."""
    return Resources.of(
        {n: Resource.of(used.get(n), available.get(n)) for n in RESOURCES if n in used or n in available}
    )


def slack(clock: Clock) -> float | None:
    """Target - uncertainty - estimated: what the .rpt prints (2020.2 prints it negated)."""
    parts = (clock.target_ns, clock.uncertainty_ns, clock.estimated_ns)
    if not all(is_number(p) for p in parts):
        return None
    return round(clock.target_ns - clock.uncertainty_ns - clock.estimated_ns, 3)
