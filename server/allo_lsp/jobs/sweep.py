"""Design-space sweeps: every combination of module-level constants and synthesis settings, one
synthesis per point, as one table with its Pareto front (latency against resources).

A point's constants are applied to the design's text (`points.Constants`), never to the user's
file; `clock` and `part` are synthesis settings. Locally the points run as a bounded pool of
synthesis jobs; on the cluster as one Slurm job array (`slurm_jobs.py`). A sweep has at most
`max_points` points (`alloDataflow.sweep.maxPoints`, `--max-points`), refused before anything is
made; a point that fails, whatever the cause, is that point's row, never the sweep's end.
"""

from __future__ import annotations

import ast
import asyncio
import csv
import io
import itertools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from allo_lsp.jobs.points import Constants, Point, PointError
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.job_values import clock_error, part_error
from allo_lsp.protocol.messages import ERROR, PASSED, SYNTHESIZE, JobResult
from allo_lsp.protocol.report import RESOURCES, decoded, known

log = logging.getLogger(__name__)
SETTINGS = {"clock": "clock_ns", "part": "part"}  # --set names that are synthesis settings
MAX_POINTS = 256  # alloDataflow.sweep.maxPoints' default: a day of synthesis runs on two cores
VALUE_LIMIT = 200  # characters of one --set value (a literal: a number, a string, a boolean)


class SweepError(Exception):
    """A sweep that cannot run as asked; the message says what to change."""


def parse_value(text: str, name: str):
    """`4` -> 4, `3.33` -> 3.33, `True`, `"s"`; anything else is the string itself. A value of
    more than `VALUE_LIMIT` characters, or a number that is not finite (`1e999`), is a SweepError."""
    if len(text) > VALUE_LIMIT:
        raise SweepError(f"--set {name}: a value of {len(text):,} characters (at most {VALUE_LIMIT})")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    except (RecursionError, MemoryError):  # nested past the parser's depth (`-----1`, `((((1))))`)
        raise SweepError(f"--set {name}: {text[:40]!r}... is nested too deeply to read as a value") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise SweepError(f"--set {name}: {text!r} is not a finite number")
    return value if isinstance(value, (int, float, str, bool)) else text


def parse_sets(sets: list[str], max_points: int = MAX_POINTS) -> dict[str, list]:
    """`["P0=2,4", "clock=3.33,5"]` -> `{"P0": [2, 4], "clock": [3.33, 5]}`, in the order given.
    More than `max_points` combinations is a SweepError, before any value is read."""
    texts: dict[str, list[str]] = {}
    for item in sets:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier() or not values.strip():
            raise SweepError(f"--set {item[:80]!r}: write NAME=V1,V2,... (a module-level constant, clock or part)")
        if name in texts:
            raise SweepError(f"--set {name[:80]} is given twice: list all its values in one --set")
        texts[name] = values.split(",")
    count = math.prod(len(values) for values in texts.values())
    if count > max_points:
        raise SweepError(
            f"a sweep of {count:,} points is more than the {max_points:,} allowed "
            "(alloDataflow.sweep.maxPoints; allo-lsp sweep --max-points): sweep fewer values"
        )
    out = {name: [parse_value(v.strip(), name) for v in values] for name, values in texts.items()}
    # The values run.tcl embeds are checked here, once, before any point is made (as settings are).
    # A clock of 0 means "Allo's own" in the settings; in a sweep it is no period.
    for value in out.get("clock", ()):
        why = clock_error(value) if value != 0 else "0 is no clock period"
        if why is not None:
            raise SweepError(f"--set clock: {why} (periods in ns, e.g. clock=3.33,5)")
    for value in out.get("part", ()):
        if (why := part_error(value)) is not None:
            raise SweepError(f"--set part: {why}")
    return out


def checked_points(source: str, sets: dict[str, list]) -> list[Point]:
    """Every combination of `sets`; a name the design lacks fails (PointError) before any job
    starts. Every point sets the same names, so the first one applied tells for all."""
    points = points_of(sets)
    if points:
        Constants(source).applied(points[0].constants)
    return points


def points_of(sets: dict[str, list]) -> list[Point]:
    """Every combination, the first --set varying slowest."""
    names = list(sets)
    out = []
    for values in itertools.product(*(sets[n] for n in names)):
        point = Point()
        for name, value in zip(names, values):
            if name in SETTINGS:
                setattr(point, SETTINGS[name], float(value) if name == "clock" else str(value))
            else:
                point.constants[name] = value
        out.append(point)
    return out


# What the table's Pareto column means.
FRONT = "real time, worst-case cycles x clock period, against the most used resource, among the points that meet timing"


@dataclass
class Row:
    """One point's outcome, as the table shows it."""

    point: dict  # the --set values of this point
    status: str
    message: str = ""
    latency: int | None = None  # worst-case cycles
    ii: int | None = None  # the slowest interval
    resources: dict = field(default_factory=dict)  # name -> percent used
    clock_ns: float | None = None  # the target
    estimated_ns: float | None = None
    slack_ns: float | None = None
    project: str | None = None
    pareto: bool = False
    meets_timing: bool | None = None  # False: negative slack (never on the front); None: not known
    time_ns: float | None = None  # real time: worst-case cycles x the clock period

    @property
    def resource(self) -> float | None:
        """The point's resource figure against real time: its most used resource, in percent."""
        return max(self.resources.values()) if self.resources else None

    def figure(self, resource: str | None) -> float | None:
        """`resource`'s percent, or (None) the most used resource's."""
        return self.resource if resource is None else self.resources.get(resource)


def row_of(point: Point, names: list[str], outcome: JobResult) -> Row:
    values = {**point.constants, "clock": point.clock_ns or None, "part": point.part or None}
    details = details_as(outcome.details, SynthesisDetails)
    row = Row({n: values.get(n) for n in names}, outcome.status, outcome.message, project=details.project)
    report = decoded(details.report) if outcome.status == PASSED else None
    if report is not None:
        latency, interval, clock = report.latency, report.interval, report.clock
        # The first number of each (a report's unknown and unreadable figures, a range, are none here).
        row.latency = _first_number(latency.worst, latency.best)
        row.ii = _first_number(interval.max, interval.min)
        row.resources = {name: r.percent for name, r in report.resources.items() if known(r.percent) is not None}
        row.clock_ns = known(clock.target_ns)
        row.estimated_ns, row.slack_ns = known(clock.estimated_ns), known(clock.slack_ns)
        row.meets_timing = None if row.slack_ns is None else row.slack_ns >= 0
        period = row.clock_ns if row.clock_ns is not None else point.clock_ns or None
        # Cycles at different clocks are not comparable: a point's speed is its cycles' time.
        row.time_ns = row.latency * period if row.latency is not None and period else None
    return row


def _first_number(*values) -> int | float | None:
    return next((n for n in map(known, values) if n is not None), None)


def front(rows: list[Row], resource: str | None = None) -> list[int]:
    """Indices of the rows on the Pareto front of real time against `resource` (None: each
    point's most used one): among the points that meet timing (a negative slack's figures are
    not what the design achieves), those no other beats: none with lower-or-equal time and
    resource, one of them lower."""
    scored = [
        (i, r.time_ns, r.figure(resource))
        for i, r in enumerate(rows)
        if r.meets_timing is not False and r.time_ns is not None and r.figure(resource) is not None
    ]
    return [i for i, t, x in scored if not any(ot <= t and ox <= x and (ot, ox) != (t, x) for _, ot, ox in scored)]


def mark_pareto(rows: list[Row]) -> list[Row]:
    """Marks the rows on the front of real time against the most used resource."""
    on = set(front(rows))
    for i, row in enumerate(rows):
        row.pareto = i in on
    return rows


def columns(rows: list[Row]) -> list[str]:
    names = list(rows[0].point) if rows else []
    used = [r for r in RESOURCES if any(r in row.resources for row in rows)]
    return [
        *names,
        "status",
        "latency",
        "II",
        *(f"{r}%" for r in used),
        "clock_ns",
        "estimated_ns",
        "slack_ns",
        "pareto",
    ]


def _cells(row: Row, header: list[str]) -> list:
    fixed = {
        "status": row.status,
        "latency": row.latency,
        "II": row.ii,
        "clock_ns": row.clock_ns if row.clock_ns is not None else row.point.get("clock"),
        "estimated_ns": row.estimated_ns,
        "slack_ns": row.slack_ns,
        "pareto": "*" if row.pareto else "!" if row.meets_timing is False else "",
    }
    out = []
    for name in header:
        if name in fixed:
            out.append(fixed[name])
        elif name.endswith("%") and name[:-1] in RESOURCES:
            out.append(row.resources.get(name[:-1]))
        else:
            out.append(row.point.get(name))
    return out


def table_text(rows: list[Row]) -> str:
    header = columns(rows)
    cells = [
        [("" if c is None else f"{c:g}" if isinstance(c, float) else str(c)) for c in _cells(r, header)] for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths)) for cell in cells]
    failed = [r for r in rows if r.status != PASSED]
    lines += [f"{r.point}: {r.status}: {r.message}" for r in failed]
    lines.append(f"* on the Pareto front ({FRONT}); ! fails timing (negative slack): not ranked")
    return "\n".join(lines)


def table_csv(rows: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = columns(rows)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if c is None else c for c in _cells(row, header)])
    return out.getvalue()


def table_json(rows: list[Row]) -> list[dict]:
    return [{**{k: v for k, v in vars(r).items() if k != "point"}, "point": r.point} for r in rows]


async def run_local(
    file: str,
    region: str,
    source: str,
    points: list[Point],
    config,
    synth,
    pool: int = 2,
    manager=None,
    done: Callable[[int], None] = lambda count: None,
) -> list[JobResult]:
    """Each point a local synthesis, at most `pool` at once (or in `manager`, whose `close` then
    cancels the sweep); outcomes in the points' order. `done(count)` as each point ends."""
    from allo_lsp.jobs.launch import Target
    from allo_lsp.jobs.manager import JobManager
    from allo_lsp.jobs.synthesis import synthesize_point

    manager = manager or JobManager(max_concurrent=pool)
    design = Constants(source)  # read once for every point
    ended = 0

    async def one(index: int, point: Point) -> JobResult:
        nonlocal ended
        target = Target(file, region, SYNTHESIZE, f"point-{index}")  # one job key per point
        try:
            result = await synthesize_point(manager, target, design, point, config, synth)
        except Exception as exc:  # this point's failure alone: the others' rows stand, none is cancelled
            log.exception("sweep point %d of %s::%s", index, file, region)
            result = JobResult(ERROR, "internal", f"this point failed: {type(exc).__name__}: {exc}", target=region)
        ended += 1
        done(ended)
        return result.of_kind(SYNTHESIZE)

    return list(await asyncio.gather(*(one(i, p) for i, p in enumerate(points))))


async def run_slurm(
    file: str,
    region: str,
    source: str,
    points: list[Point],
    config,
    synth,
    slurm_config,
    storage: str | None = None,
    when_cancelled=None,
    done: Callable[[int], None] = lambda count: None,
) -> list[JobResult]:
    """The points as one Slurm job array, recorded in `storage` (default: the XDG location);
    outcomes in the points' order. `when_cancelled(callback)` (the editor's Cancel): the array is
    scancelled, even one whose sbatch has not answered yet, and collected as cancelled.
    `done(count)` when a poll finds more of the array's tasks ended."""
    import sys
    from dataclasses import asdict

    from allo_lsp.jobs import slurm_jobs
    from allo_lsp.jobs.registry import Registry
    from allo_lsp.jobs.slurm_batch import BatchSpec

    spec = BatchSpec(
        file, region, source, config.python, config.llvm_build_dir, dict(config.extra_env), asdict(synth), points
    )
    storage = storage or slurm_jobs.storage_dir(None)
    cancel = slurm_jobs.Cancel(slurm_config)
    if when_cancelled is not None:
        when_cancelled(cancel.request)
    entry = await slurm_jobs.submit(slurm_config, storage, spec, cancel=cancel)
    # On stderr: stdout is the table (JSON, CSV) alone.
    print(
        f"allo-lsp sweep: {len(points)} point{'' if len(points) == 1 else 's'} as Slurm job array {entry.job_id} ({entry.job_dir})",
        file=sys.stderr,
    )
    ended = [0]

    def seen(states) -> None:
        count = sum(1 for s in states if s.done and s.task is not None) if len(points) > 1 else int(states[0].done)
        if count > ended[0]:
            ended[0] = count
            done(count)

    final = await slurm_jobs.wait(slurm_config, entry, seen)
    results = slurm_jobs.collect(entry, final)
    Registry(storage).remove(entry.job_id)
    return results


def cli(args) -> int:
    """`allo-lsp sweep FILE::REGION --set NAME=V1,V2 ...`: the table on stdout; 1 if a point failed."""
    import sys
    from pathlib import Path

    from allo_lsp.analysis import analyze
    from allo_lsp.finite_json import dumps
    from allo_lsp.jobs.environment import JobConfig, SetupError
    from allo_lsp.jobs.launch import unknown_target
    from allo_lsp.jobs.slurm import SlurmConfig, SlurmError
    from allo_lsp.jobs.synthesis import SynthConfig

    file, sep, region = args.target.rpartition("::")
    try:
        if not sep or not file or not region:
            raise SweepError("the target is FILE::REGION, e.g. examples/producer_consumer.py::top")
        source = Path(file).read_text(encoding="utf-8")
        sets = parse_sets(args.set or [], MAX_POINTS if args.max_points is None else args.max_points)
        if (why := unknown_target(analyze(source).model, region, SYNTHESIZE)) is not None:
            raise SweepError(why)  # the one name check of every job path, before any point
        points = checked_points(source, sets)
    except (SweepError, PointError, OSError, UnicodeDecodeError, SyntaxError) as exc:
        print(f"allo-lsp sweep: {exc}", file=sys.stderr)
        return 2
    config = JobConfig(python=args.python)
    synth = SynthConfig(command=args.vitis_command, part=args.part, clock_ns=args.clock, timeout_s=args.timeout)
    try:
        if args.scheduler == "slurm":
            slurm_config = SlurmConfig(args.partition, args.time, args.cpus, args.mem, args.sbatch_args)
            results = asyncio.run(run_slurm(file, region, source, points, config, synth, slurm_config))
        else:
            results = asyncio.run(run_local(file, region, source, points, config, synth, max(1, args.jobs)))
    except (SlurmError, SetupError) as exc:
        print(f"allo-lsp sweep: {exc}", file=sys.stderr)
        return 2
    rows = mark_pareto([row_of(p, list(sets), r) for p, r in zip(points, results)])
    if args.format == "json":
        print(dumps(table_json(rows), indent=2))
    elif args.format == "csv":
        print(table_csv(rows), end="")
    else:
        print(table_text(rows))
    return 0 if all(r.status == PASSED for r in rows) else 1
