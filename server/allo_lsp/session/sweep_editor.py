"""A sweep from the editor (`alloDataflow.sweep`): what a region can sweep, and the sweep itself
run as `allo-lsp sweep` runs it (`sweep.py`), answered as one table for the report view.

`[uri, region]` asks for the parameters: the file's module-level constants with their values in
the text, and the synthesis settings (`clock`, `part`) with the editor's. `[uri, region, sets]`,
`sets` the CLI's `NAME=V1,V2` strings, runs every combination: a bounded pool of local synthesis
jobs, or one Slurm job array with `alloDataflow.scheduler` = `slurm`. The user's file is never
edited: each point's constants are applied to the editor's text of it. With a fourth argument
`{"progress": TOKEN}` (the client's notification), each point done is reported on TOKEN as
`$/progress` ("3 of 8 points done"). More points than `alloDataflow.sweep.maxPoints` is refused
at once; the points are made and checked, and each point's design analysed, off the event loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

from allo_lsp.jobs.environment import SetupError
from allo_lsp.jobs.points import PointError, module_constants
from allo_lsp.jobs.slurm import SlurmError
from allo_lsp.jobs.sweep import (
    FRONT,
    MAX_POINTS,
    SETTINGS,
    SweepError,
    checked_points,
    columns,
    front,
    mark_pareto,
    parse_sets,
    row_of,
    table_json,
)
from allo_lsp.protocol.details import SynthesisDetails, details_as
from allo_lsp.protocol.messages import ERROR, FAILED, PASSED, JobResult

# Points synthesized at once locally: each is a Vitis run of its own, so half the cores.
POOL = max(1, (os.cpu_count() or 2) // 2)
CANCEL_WAIT_S = 5.0  # for a cancelled sweep's processes to be gone
OnCancel = Callable[[Callable[[], object]], None]
Report = Callable[[object, str], None]  # (the client's progress token, a message)
MOST_USED = "most used"  # the key of the front against each point's most used resource (the client's chart's)


def parameters(source: str, synth) -> dict:
    """What `[uri, region]` answers: the constants and settings a sweep of the file can set."""
    constants = [{"name": n, "value": v} for n, v in module_constants(source).items()]
    settings = [{"name": name, "value": getattr(synth, field) or None} for name, field in SETTINGS.items()]
    return {"constants": constants, "settings": settings}


async def command(
    file: str,
    region: str,
    source: str,
    rest: tuple,
    settings,
    storage: str,
    when_cancelled: OnCancel,
    report: Report = lambda token, message: None,
) -> dict:
    """`alloDataflow.sweep`'s answer: without `sets` the parameters, with them the sweep's table.
    `when_cancelled(callback)`: `callback()` runs if the client cancels the request;
    `report(token, message)`: progress on the token the client gave (`rest[1]["progress"]`)."""
    if not rest:
        return parameters(source, settings.synth_config())
    config, synth, slurm = settings.job_config(), settings.synth_config(), settings.slurm_config()
    token = rest[1].get("progress") if len(rest) > 1 and isinstance(rest[1], dict) else None
    say = (lambda message: report(token, message)) if isinstance(token, (str, int)) else (lambda message: None)
    return await sweep(
        file, region, source, rest[0], config, synth, slurm, storage, when_cancelled, say, settings.sweep_max_points
    )


def _error(region: str, message: str) -> dict:
    return {"status": ERROR, "region": region, "message": message, "columns": [], "rows": []}


async def sweep(
    file: str,
    region: str,
    source: str,
    sets: object,
    config,
    synth,
    slurm,
    storage: str,
    when_cancelled: OnCancel,
    say: Callable[[str], None] = lambda message: None,
    max_points: int = MAX_POINTS,
) -> dict:
    """Every point of `sets` synthesized; the table (rows in the points' order, each with its
    report when it passed), or why the sweep cannot run. A local sweep cancelled ends every
    point's processes, those queued included; a cluster sweep's job array is scancelled (that
    array alone) and collected, its points cancelled, so the registry no longer records it."""
    from allo_lsp.jobs.manager import JobManager
    from allo_lsp.jobs.sweep import run_local, run_slurm

    if not isinstance(sets, list) or not sets or not all(isinstance(s, str) for s in sets):
        return _error(region, "a sweep takes its values as NAME=V1,V2 strings, at least one")
    try:
        parsed = parse_sets(sets, max_points)
        points = await asyncio.to_thread(checked_points, source, parsed)
    except (SweepError, PointError, SyntaxError) as exc:
        return _error(region, str(exc))

    def done(count: int) -> None:
        say(f"{count} of {len(points)} point{'' if len(points) == 1 else 's'} done")

    try:
        if slurm is not None:
            results = await run_slurm(file, region, source, points, config, synth, slurm, storage, when_cancelled, done)
        else:
            manager = JobManager(max_concurrent=POOL)
            when_cancelled(lambda: asyncio.ensure_future(manager.close(CANCEL_WAIT_S)))
            results = await run_local(file, region, source, points, config, synth, POOL, manager, done)
    except (SlurmError, SetupError) as exc:
        return _error(region, str(exc))
    return table(region, list(parsed), points, results)


def table(region: str, names: list[str], points, results: list[JobResult]) -> dict:
    rows = mark_pareto([row_of(p, names, r) for p, r in zip(points, results)])
    out = table_json(rows)
    for row, result in zip(out, results):
        details = details_as(result.details, SynthesisDetails)
        row["report"] = details.report if result.status == PASSED else None
    passed = sum(r.status == PASSED for r in rows)
    return {
        "status": PASSED if passed == len(rows) else FAILED,
        "region": region,
        "message": f"{passed} of {len(rows)} points synthesized",
        "parameters": names,
        "columns": columns(rows),
        "front": FRONT,
        # The chart's fronts, one per resource it can draw against: the client draws, never ranks.
        "fronts": {MOST_USED: front(rows), **{name: front(rows, name) for name in _resources(rows)}},
        "rows": out,
    }


def _resources(rows) -> list[str]:
    return sorted({name for row in rows for name in row.resources})
