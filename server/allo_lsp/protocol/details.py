"""What a finished job carries besides its status, typed per job kind, and its one JSON encoding.

`JobResult.details` is one of these classes: `Details` (what any job's result may carry), with
`SimulateDetails`, `RunDetails`, `SynthesisDetails` and `MlirDetails` adding what those kinds find
(`messages.DETAILS` maps each job kind to its class). Readers use the fields. The JSON (the
runner's result pipe, `allo-lsp run` and `synth --format json`) has one key per field, named as
the field: the keys those outputs always had (`log`, `differential`, `fifo_statistics`, ...).
A field that is None or an empty list or dict is left out of the JSON, and decoding gives it
back, so a result says only what its job found.

Stdlib only: the runner imports this inside the user's Allo interpreter.
"""

from __future__ import annotations

import numbers
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from functools import cache
from typing import Any

# The JSON keys of the reference executor's findings (runner/reference/fifos.py), which the
# editor shows on a stream's hover and turns into a quick fix of the declared depth.
FIFO_STATISTICS = "fifo_statistics"
FIFO_SIZING = "fifo_sizing"


@dataclass
class Blocked:
    """A PE that waits forever when a deadlock is declared (runner/reference/scheduler.Blocked)."""

    pe: str = ""
    stream: str = ""
    op: str = ""  # put, get, or poll (a try_get/try_put that never succeeds)
    line: int | None = None  # 1-based, in the user's file
    occupancy: int = 0
    depth: int = 0


@dataclass
class SizedStream:
    """A declaration a deadlock's diagnosis deepens: the smallest depth that completes."""

    stream: str = ""
    file: str | None = None
    line: int = 0  # 1-based
    declared: int = 0
    depth: int = 0


@dataclass
class PutsAndGets:
    """How many items one PE put into and got from a stream declaration (a put/get imbalance)."""

    stream: str = ""
    pe: str = ""
    puts: int = 0
    gets: int = 0


@dataclass
class Leftover:
    """Elements a re-run that completed left unread in one stream declaration's FIFOs."""

    stream: str = ""
    file: str | None = None
    line: int = 0  # 1-based, the declaration's
    elements: int = 0


DEPTH, IMBALANCE, UNKNOWN = "depth", "imbalance", "unknown"  # `FifoSizing.kind`


@dataclass
class FifoSizing:
    """A deadlock's diagnosis: a larger depth completes with every FIFO empty (`DEPTH`,
    `streams`); a put/get imbalance (`IMBALANCE`, `counts`): the re-run with every FIFO
    `completes_at` deep completes but leaves elements unread (`leftover`), or no depth up to
    `bound` completes; or the re-runs found no answer (`UNKNOWN`)."""

    kind: str = ""
    message: str = ""
    streams: list[SizedStream] = field(default_factory=list)
    bound: int | None = None
    counts: list[PutsAndGets] = field(default_factory=list)
    largest_depth: int | None = None
    completes_at: int | None = None
    leftover: list[Leftover] = field(default_factory=list)


@dataclass
class LongestBlock:
    """The PE that waited longest on one FIFO of a stream declaration."""

    pe: str = ""
    op: str = ""
    fifo: str = ""
    waits: int = 0
    seconds: float = 0.0


@dataclass
class StreamStatistics:
    """One stream declaration's figures in one run (a stream array sums its FIFOs)."""

    line: int | None = None
    depth: int = 0
    fifos: int = 0
    puts: int = 0
    gets: int = 0
    max_occupancy: int = 0
    waits: int = 0  # times a PE parked on it (full on put, empty on get)
    blocked_longest: LongestBlock | None = None
    # Elements still in its FIFOs when the run completed: never read (Vitis C simulation's
    # "leftover data"). 0 after a deadlock, whose FIFOs hold what the blocked PEs left.
    leftover: int = 0


@dataclass
class TracedValues:
    """The first values one PE put to (or got from) one FIFO in a run that asked for them (the
    job's `trace` option: runner/reference/scheduler.py `tracing`), and how many it put or got."""

    fifo: str = ""  # the FIFO: `fifo_A[1, 3]`, a plain stream's name
    pe: str = ""
    op: str = ""  # put or get
    count: int = 0
    values: list = field(default_factory=list)  # the first ones, at most 16


@dataclass
class FifoRun:
    """The FIFO statistics of one region's run in the reference executor (and its trace when asked)."""

    region: str = ""
    streams: dict[str, StreamStatistics] = field(default_factory=dict)
    trace: list[TracedValues] = field(default_factory=list)


@dataclass
class Differential:
    """The same seeded inputs through the reference executor after Allo's simulator: the largest
    difference per output, or why the executor could not run the design."""

    max_abs_diff: dict[str, float] = field(default_factory=dict)
    error: str | None = None


@dataclass
class ParameterCase:
    """One parameter set of a parametrized test (runner/pytest_marks.py)."""

    id: str = ""
    status: str = ""
    cause: str | None = None
    message: str | None = None


class _MappingRead:
    """The reading by key of the untyped dict `details` was: the field's JSON. Kept for readers
    outside the package (tests and scripts written against the JSON); the package reads the
    fields (tests/test_layers.py)."""

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, None) if key in _names(type(self)) else None
        return default if _absent(value) else to_json(value)

    def __getitem__(self, key: str) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value


@dataclass
class Details(_MappingRead):
    """What the result of any job may carry."""

    log: str | None = None  # the end of what the job printed
    job_dir: str | None = None  # its directory, when kept (a synthesis project)
    artifact_text: str | None = None  # the text of `JobResult.artifact` (the MLIR of an mlir or probe job)
    assertion: str | None = None  # the full text of a failed assertion
    traceback: str | None = None  # of an exception from the design


@dataclass
class SimulateDetails(Details):
    """A module-level region simulated: the reference executor's FIFO figures and deadlock
    diagnosis, and, after Allo's simulator, the differential run."""

    differential: Differential | None = None
    fifo_statistics: list[FifoRun] = field(default_factory=list)
    blocked: list[Blocked] = field(default_factory=list)
    fifo_sizing: FifoSizing | None = None


@dataclass
class RunDetails(SimulateDetails):
    """A test function run: what a simulation finds, per parameter set, and what ran emulated."""

    parameters: list[ParameterCase] = field(default_factory=list)
    emulated: list[str] = field(default_factory=list)  # e.g. aie, run functionally by the reference executor


@dataclass
class SynthesisDetails(Details):
    """Vitis HLS synthesis: the project, and the report when one was written."""

    project: str | None = None  # the HLS project directory Allo wrote
    report: dict | None = None  # the report as `allo-lsp report --format json` prints it (reports/)
    report_markdown: str | None = None
    errors: list[str] = field(default_factory=list)  # the ERROR lines of the tool's log


# Bounds on the runner's reading of a compiled module (`MlirDetails.compiled`): each list, each
# call's operands, each printed type. A module past them is `truncated` (its lists are not all of it).
COMPILED_LIMIT = 4096
OPERAND_LIMIT = 256
TYPE_LIMIT = 500


@dataclass(frozen=True)
class CompiledFunction:
    """A `func.func` of the compiled module as far as its header goes (types as MLIR prints them)."""

    name: str = ""
    arg_types: tuple[str, ...] = ()
    itypes: str | None = None  # one character per argument: s signed, u unsigned, _ other
    stypes: str | None = None  # one per argument: i a stream read, o written, _ not a stream
    kernel: bool = False  # `df.kernel`: a PE of one of the region's kernels
    dataflow: bool = False  # `dataflow`: the region's top function
    nested: bool = False  # `df.nested_kernel`: a PE of a region a kernel calls


@dataclass(frozen=True)
class CompiledStream:
    """An `allo.stream_construct` in a function's body: one FIFO (a stream array's element is
    `NAME_I_J`), its element type and depth read from its type `!allo.stream<ELEMENT, DEPTH>`."""

    name: str = ""
    function: str = ""  # the function whose body constructs it (the region's top function)
    element: str = ""
    depth: int | None = None  # None: a type not of that form


# `CompiledCall.operands`: `arg:N` the caller's argument N (0-based), `stream:NAME` the stream it
# constructs under that name, `?` anything else.
ARG, STREAM, OTHER = "arg:", "stream:", "?"


@dataclass(frozen=True)
class CompiledCall:
    """A `func.call` in a function's body: the top function calling each PE."""

    caller: str = ""
    callee: str = ""
    operands: tuple[str, ...] = ()


@dataclass
class CompiledModule:
    """The compiled module as the runner read it, with the bindings of the Allo that made it."""

    bindings: str = ""  # the module that parsed it, e.g. `allo._mlir.ir`
    functions: list[CompiledFunction] = field(default_factory=list)
    streams: list[CompiledStream] = field(default_factory=list)
    calls: list[CompiledCall] = field(default_factory=list)
    truncated: bool = False  # a list or a call's operands hit the bounds above


@dataclass
class MlirDetails(Details):
    """An MLIR (or probe) job: the module read by the runner, where it was made (runner/mlir_module.py),
    or why it was not (no `allo._mlir` in that interpreter, a module its bindings refused)."""

    compiled: CompiledModule | None = None
    unread: str | None = None


def encode(details: Details) -> dict:
    """The JSON of `details`."""
    return to_json(details)


def decode(data: dict, cls: type[Details] | None = None) -> Details:
    """`Details` from their JSON: as `cls`, or (None: details written by hand, without their job's
    kind) as the first class that has every key. Unknown keys are ignored."""
    if not isinstance(data, dict):
        raise TypeError(f"details must be an object, not {type(data).__name__}")
    if cls is None:
        keys = set(data)
        classes = (Details, SimulateDetails, RunDetails, SynthesisDetails, MlirDetails)
        cls = next((c for c in classes if keys <= _names(c)), None)
        cls = cls or max(classes, key=lambda c: len(keys & _names(c)))
    return from_json(cls, data)


D = typing.TypeVar("D", bound=Details)


def details_as(details: Details, cls: type[D]) -> D:
    """`details` read as a `cls`: themselves when they are one, else a new one with what they say
    that a `cls` has (the details of a failure made before its job's kind was known, say)."""
    if isinstance(details, cls):
        return details
    names = _names(cls)
    return cls(**{f.name: getattr(details, f.name) for f in fields(details) if f.name in names})


def to_json(value: Any) -> Any:
    """Records as objects without their absent fields; lists and dicts element by element."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is list or cls is tuple:
        return [to_json(v) for v in value]
    if cls is dict:
        return {k: to_json(v) for k, v in value.items()}
    names = _record_fields(cls)
    if names is None:
        return value
    out = {}
    for name in names:
        v = getattr(value, name)
        if not _absent(v):
            out[name] = to_json(v)
    return out


def from_json(hint: Any, data: Any) -> Any:
    """`data` read as `hint`: a record class, `list[X]`, `dict[str, X]`, `X | None`, a scalar
    (checked) or anything else (`dict`: taken as it comes). TypeError when it does not fit."""
    return _decoder(hint)(data)


_PLAIN = frozenset({str, int, float, bool, type(None)})
# What each scalar type of a field accepts: JSON writes an integral float as an int, and the
# runner's own figures may be numpy numbers before they are written.
_SCALARS = {str: str, int: numbers.Integral, float: numbers.Real, bool: bool}


@cache
def _decoder(hint: Any) -> Callable[[Any], Any]:
    """The reading of `hint`, made once per type: a result may hold thousands of records."""
    if isinstance(hint, type) and is_dataclass(hint):
        readers = {name: _decoder(h) for name, h in typing.get_type_hints(hint).items()}

        def record(data: Any) -> Any:
            if data is None:
                return None
            _checked(data, dict, hint.__name__)
            return hint(**{k: readers[k](v) for k, v in data.items() if k in readers})

        return record
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        others = [a for a in args if a is not type(None)]
        return _decoder(others[0]) if len(others) == 1 else _as_it_comes
    if origin is list and args:
        item = _decoder(args[0])
        return lambda data: None if data is None else [item(v) for v in _checked(data, list, "array")]
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])
        return lambda data: None if data is None else tuple(item(v) for v in _checked(data, list, "array"))
    if origin is dict and len(args) == 2:
        value = _decoder(args[1])
        return lambda data: None if data is None else {k: value(v) for k, v in _checked(data, dict, "object").items()}
    if hint in _SCALARS:
        accepted = _SCALARS[hint]
        return lambda data: data if data is None or type(data) is hint else _checked(data, accepted, hint.__name__)
    return _as_it_comes


def _as_it_comes(data: Any) -> Any:
    return data


def _checked(data: Any, kind: type, name: str) -> Any:
    if not isinstance(data, kind):
        raise TypeError(f"expected {name}, not {type(data).__name__}")
    return data


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, (list, tuple, dict)) and not value)


@cache
def _record_fields(cls: type) -> tuple[str, ...] | None:
    return tuple(f.name for f in fields(cls)) if is_dataclass(cls) else None


@cache
def _names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))
