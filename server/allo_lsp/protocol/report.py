"""A Vitis HLS synthesis report, typed, and its one JSON encoding.

reports/ makes a `Report` from Vitis' files (the only module that knows their field names);
everything else reads these fields. The JSON (`Report.to_json`) is what `allo-lsp report
--format json` prints, what `SynthesisDetails.report` carries, what the report view draws and what
the workspace's storage keeps of a region's run before (`jobs/previous_reports.py`):

    {"version", "part", "top",
     "clock": {"target_ns", "uncertainty_ns", "estimated_ns", "slack_ns"},
     "latency": {"best", "average", "worst"}, "interval": {"min", "max"},
     "resources": {NAME: {"used", "available", "percent"}},   NAME in RESOURCES, in its order
     "modules": [{"name", "latency", "interval", "resources", "loops"}],
     "loops": [{"name", "trip_count", "latency", "iteration_latency", "ii", "pipelined", "loops"}],
     "unreadable": [{"figure": "modules[0].latency.worst", "text"}]}   only when one is

A figure is a number, null (unknown), or `{"min", "max"}` (a range). An unreadable figure (a
number no figure can be: 400 digits, `1e999`) is null in its place and listed, with that place,
under `unreadable`; decoding puts it back. `Report.from_json` reads that JSON, stored or received,
bounded and shape-checked: a report that does not fit is a `MalformedReport`, never a crash
(`decoded`: None then).

Stdlib only (protocol/).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields

# The resources a report figures, in the one order every table, column and JSON object takes.
RESOURCES = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")
MAX_NESTING = 100  # loops in loops: deeper than any design, past it not a report
MAX_UNREADABLE = 10_000  # entries of `unreadable` read (a report has a few hundred figures)


class MalformedReport(ValueError):
    """JSON that is not a report's: the message says where and what is wrong."""


@dataclass(frozen=True)
class UnreadableFigure:
    """A figure whose text is no number a report figure can be; `text` is what the report wrote
    (its start)."""

    text: str


Number = int | float
Figure = Number | UnreadableFigure | None  # one number, unknown (None) or unreadable


@dataclass(frozen=True)
class Range:
    min: Figure
    max: Figure


Value = Number | Range | UnreadableFigure | None  # a figure, or a range the report gives


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def known(value: Value) -> Number | None:
    """The figure as a finite number; None when it is unknown, unreadable or a range."""
    return value if is_number(value) and math.isfinite(value) else None


def given(value: Value) -> Value:
    """The figure the report gives: None for an unreadable one too (as the JSON writes it)."""
    return None if isinstance(value, UnreadableFigure) else value


def worst(value: Value) -> Number | None:
    """The figure's worst case: a range's maximum (what a user plans for), else `known`."""
    return known(value.max if isinstance(value, Range) else value)


@dataclass(frozen=True)
class Resource:
    used: Figure = None
    available: Figure = None
    percent: float | None = None  # of the available, when both are known and some is

    @staticmethod
    def of(used: Figure, available: Figure) -> Resource:
        # 0 available (URAM on most Zynq-7000 parts) is "nothing to use", not a division by zero.
        percent = None
        if is_number(used) and is_number(available) and available > 0:
            percent = round(100.0 * used / available, 2)
            percent = percent if math.isfinite(percent) else None  # 1e100 used of 1e-300 available
        return Resource(used, available, percent)


_FIELD = {name: name.lower() for name in RESOURCES}


@dataclass(frozen=True)
class Resources(Mapping):
    """The resources a report (or one module of it) figures: a field each, None where it gives
    none; read by name (`resources["LUT"]`) in `RESOURCES`' order as a mapping of those present."""

    bram_18k: Resource | None = None
    dsp: Resource | None = None
    ff: Resource | None = None
    lut: Resource | None = None
    uram: Resource | None = None

    @staticmethod
    def of(found: Mapping[str, Resource]) -> Resources:
        return Resources(**{_FIELD[name]: r for name, r in found.items() if name in _FIELD})

    def __getitem__(self, name: str) -> Resource:
        resource = getattr(self, _FIELD[name]) if name in _FIELD else None
        if resource is None:
            raise KeyError(name)
        return resource

    def __iter__(self) -> Iterator[str]:
        return (name for name in RESOURCES if getattr(self, _FIELD[name]) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True)
class Clock:
    target_ns: Figure = None
    uncertainty_ns: Figure = None
    estimated_ns: Figure = None
    slack_ns: Figure = None


@dataclass(frozen=True)
class Latency:
    best: Value = None
    average: Value = None
    worst: Value = None


def _no_range() -> Range:
    return Range(None, None)


@dataclass(frozen=True)
class Loop:
    name: str
    trip_count: Value = None
    latency: Value = None
    iteration_latency: Value = None
    ii: Value = None
    pipelined: bool = False
    loops: tuple[Loop, ...] = ()
    latency_ns: Value = None  # absolute latency; shown in the tables, not part of the JSON


@dataclass(frozen=True)
class Module:
    """A function of the design as Vitis synthesized it (a PE keeps its instance name, `gemm_0_1`)."""

    name: str
    latency: Latency = field(default_factory=Latency)
    interval: Range = field(default_factory=_no_range)
    resources: Resources = field(default_factory=Resources)
    loops: tuple[Loop, ...] = ()
    depth: int = 0  # place in the design hierarchy (0 = top), for drawing the tree; not in the JSON
    latency_ns: Value = None


@dataclass(frozen=True)
class Report:
    version: str | None = None
    part: str | None = None
    top: str | None = None
    clock: Clock = field(default_factory=Clock)
    latency: Latency = field(default_factory=Latency)
    interval: Range = field(default_factory=_no_range)
    resources: Resources = field(default_factory=Resources)
    modules: tuple[Module, ...] = ()
    loops: tuple[Loop, ...] = ()
    latency_ns: Value = None  # not in the JSON
    source: str = ""  # the file it was read from ("" for text or JSON); not in the JSON

    def module(self, name: str) -> Module | None:
        return next((m for m in self.modules if m.name == name), None)

    def to_json(self) -> dict:
        return _Encoder().report(self)

    @staticmethod
    def from_json(data: object) -> Report:
        """The report `data` is the JSON of (`to_json`'s shape; keys it lacks are unknowns).
        MalformedReport when it is not one."""
        return _Decoder(data).report(data)


def decoded(data: object) -> Report | None:
    """The report of `data`, None when there is none or it is not a report's JSON."""
    if data is None:
        return None
    try:
        return Report.from_json(data)
    except MalformedReport:
        return None


def json_value(value: Value) -> object:
    """A figure as the JSON writes it: a range as `{"min", "max"}`, an unreadable one as null."""
    return _Encoder().value(value, "")


def clock_json(clock: Clock) -> dict:
    """The clock's figures as the report's JSON writes them."""
    return {name: json_value(getattr(clock, name)) for name in _CLOCK}


_CLOCK = tuple(f.name for f in fields(Clock))
_LATENCY = tuple(f.name for f in fields(Latency))
_LOOP_FIGURES = ("trip_count", "latency", "iteration_latency", "ii")


class _Encoder:
    """The JSON of a report, noting where each unreadable figure was."""

    def __init__(self) -> None:
        self.unreadable: list[dict] = []

    def report(self, r: Report) -> dict:
        data = {
            "version": r.version,
            "part": r.part,
            "top": r.top,
            "clock": {name: self.value(getattr(r.clock, name), f"clock.{name}") for name in _CLOCK},
            "latency": self.latency(r.latency, "latency"),
            "interval": self.value(r.interval, "interval"),
            "resources": self.resources(r.resources, "resources"),
            "modules": [self.module(m, f"modules[{i}]") for i, m in enumerate(r.modules)],
            "loops": self.loops(r.loops, "loops"),
        }
        if self.unreadable:
            data["unreadable"] = self.unreadable
        return data

    def value(self, value: Value, where: str) -> object:
        if isinstance(value, Range):
            return {"min": self.value(value.min, f"{where}.min"), "max": self.value(value.max, f"{where}.max")}
        if isinstance(value, UnreadableFigure):
            self.unreadable.append({"figure": where, "text": value.text})
            return None
        return value

    def latency(self, latency: Latency, where: str) -> dict:
        return {k: self.value(getattr(latency, k), f"{where}.{k}") for k in _LATENCY}

    def resources(self, resources: Resources, where: str) -> dict:
        return {
            name: {
                "used": self.value(r.used, f"{where}.{name}.used"),
                "available": self.value(r.available, f"{where}.{name}.available"),
                "percent": r.percent,
            }
            for name, r in resources.items()
        }

    def module(self, m: Module, where: str) -> dict:
        return {
            "name": m.name,
            "latency": self.latency(m.latency, f"{where}.latency"),
            "interval": self.value(m.interval, f"{where}.interval"),
            "resources": self.resources(m.resources, f"{where}.resources"),
            "loops": self.loops(m.loops, f"{where}.loops"),
        }

    def loops(self, loops: tuple[Loop, ...], where: str) -> list[dict]:
        return [self.loop(loop, f"{where}[{i}]") for i, loop in enumerate(loops)]

    def loop(self, loop: Loop, where: str) -> dict:
        return {
            "name": loop.name,
            **{k: self.value(getattr(loop, k), f"{where}.{k}") for k in _LOOP_FIGURES},
            "pipelined": loop.pipelined,
            "loops": self.loops(loop.loops, f"{where}.loops"),
        }


class _Decoder:
    """A report's JSON read back, each figure at the place `_Encoder` names it (so that an
    unreadable one listed there comes back as one)."""

    def __init__(self, data: object) -> None:
        listed = data.get("unreadable") if isinstance(data, dict) else None
        listed = _list(listed, "unreadable")[:MAX_UNREADABLE]
        self.unreadable = {}
        for i, entry in enumerate(listed):
            entry = _object(entry, f"unreadable[{i}]")
            where, text = entry.get("figure"), entry.get("text")
            if not isinstance(where, str) or not isinstance(text, str):
                raise MalformedReport(f"unreadable[{i}]: not {{'figure': str, 'text': str}}")
            self.unreadable[where] = UnreadableFigure(text)

    def report(self, data: object) -> Report:
        data = _object(data, "the report")
        clock = _object(data.get("clock"), "clock")
        return Report(
            version=_text(data.get("version"), "version"),
            part=_text(data.get("part"), "part"),
            top=_text(data.get("top"), "top"),
            clock=Clock(**{k: self.figure(clock.get(k), f"clock.{k}") for k in _CLOCK}),
            latency=self.latency(data.get("latency"), "latency"),
            interval=self.interval(data.get("interval"), "interval"),
            resources=self.resources(data.get("resources"), "resources"),
            modules=tuple(self.module(m, f"modules[{i}]") for i, m in enumerate(_list(data.get("modules"), "modules"))),
            loops=self.loops(data.get("loops"), "loops", 1),
        )

    def figure(self, data: object, where: str) -> Figure:
        if data is None:
            return self.unreadable.get(where)
        if not is_number(data):
            raise MalformedReport(f"{where}: {type(data).__name__} where a number is")
        return data

    def value(self, data: object, where: str) -> Value:
        if isinstance(data, dict):
            return Range(self.figure(data.get("min"), f"{where}.min"), self.figure(data.get("max"), f"{where}.max"))
        return self.figure(data, where)

    def interval(self, data: object, where: str) -> Range:
        data = _object(data, where)
        return Range(self.figure(data.get("min"), f"{where}.min"), self.figure(data.get("max"), f"{where}.max"))

    def latency(self, data: object, where: str) -> Latency:
        data = _object(data, where)
        return Latency(**{k: self.value(data.get(k), f"{where}.{k}") for k in _LATENCY})

    def resources(self, data: object, where: str) -> Resources:
        found = {}
        for name, figures in _object(data, where).items():
            if name not in _FIELD:  # a resource this version does not know: not one of the report's
                continue
            figures = _object(figures, f"{where}.{name}")
            percent = figures.get("percent")
            if percent is not None and not is_number(percent):
                raise MalformedReport(f"{where}.{name}.percent: {type(percent).__name__} where a number is")
            found[name] = Resource(
                self.figure(figures.get("used"), f"{where}.{name}.used"),
                self.figure(figures.get("available"), f"{where}.{name}.available"),
                percent,
            )
        return Resources.of(found)

    def module(self, data: object, where: str) -> Module:
        data = _object(data, where)
        return Module(
            name=_name(data.get("name"), where),
            latency=self.latency(data.get("latency"), f"{where}.latency"),
            interval=self.interval(data.get("interval"), f"{where}.interval"),
            resources=self.resources(data.get("resources"), f"{where}.resources"),
            loops=self.loops(data.get("loops"), f"{where}.loops", 1),
        )

    def loops(self, data: object, where: str, depth: int) -> tuple[Loop, ...]:
        return tuple(self.loop(loop, f"{where}[{i}]", depth) for i, loop in enumerate(_list(data, where)))

    def loop(self, data: object, where: str, depth: int) -> Loop:
        if depth > MAX_NESTING:
            raise MalformedReport(f"{where[:60]}...: loops nested more than {MAX_NESTING} deep")
        data = _object(data, where)
        pipelined = data.get("pipelined", False)
        if not isinstance(pipelined, bool):
            raise MalformedReport(f"{where}.pipelined: {type(pipelined).__name__} where true or false is")
        return Loop(
            name=_name(data.get("name"), where),
            **{k: self.value(data.get(k), f"{where}.{k}") for k in _LOOP_FIGURES},
            pipelined=pipelined,
            loops=self.loops(data.get("loops"), f"{where}.loops", depth + 1),
        )


def _object(data: object, where: str) -> dict:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MalformedReport(f"{where}: {type(data).__name__} where an object is")
    return data


def _list(data: object, where: str) -> list:
    if data is None:
        return []
    if not isinstance(data, list):
        raise MalformedReport(f"{where}: {type(data).__name__} where an array is")
    return data


def _text(data: object, where: str) -> str | None:
    if data is not None and not isinstance(data, str):
        raise MalformedReport(f"{where}: {type(data).__name__} where a string is")
    return data


def _name(data: object, where: str) -> str:
    if not isinstance(data, str):
        raise MalformedReport(f"{where}.name: {type(data).__name__} where a string is")
    return data
