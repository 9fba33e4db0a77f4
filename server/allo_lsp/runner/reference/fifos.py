"""What a reference run says about its FIFOs: statistics of every run (with what a completed run
left unread in each stream), and, when a run deadlocks, whether a larger depth would have avoided it.

Diagnosis (`diagnose`): the run is repeated from copies of its original inputs (and of the
`@ Stateful` state), every FIFO declaration at least `u` deep, `u` doubling from twice the
deepest declaration up to `BOUND`. A depth is the answer only when the run then completes with
every FIFO empty: one that completes with elements left unread is a put/get imbalance that the
larger FIFOs only hide (Vitis C simulation warns of "leftover data"; the hardware hangs or
drops them), reported with the elements left per declaration and the puts and gets of each PE
there. If one completes empty, each declaration is searched alone for the smallest depth that
completes with the others at `u` (a declaration that completes at its own depth needs no
change), and the minima are checked together. The result names each declaration to deepen, its
line and both depths: what the editor's quick fix writes. If none completes up to `BOUND`, depth
is not the cause either: a put/get imbalance, reported with the puts and gets of every PE on the
streams where they differ or a PE stayed blocked (from a re-run that counts them). Re-runs stop
after `BUDGET_S` and say so.
"""

from __future__ import annotations

import copy
import time

import numpy as np
from allo_lsp.runner.reference.scheduler import Deadlock, Scheduler

BOUND = 1 << 16
BUDGET_S = 20.0
_LISTED = 8  # PEs named in the message per stream (all of them, up to `DETAILED`, in the result)
DETAILED = 64
_recorded: list[dict] = []
DEADLOCKED, RAISED, COMPLETED = "deadlocked", "raised", "completed"  # how a re-run ended


def record(region: str, sched: Scheduler, completed: bool) -> None:
    """The statistics of one top-level run (the job's result carries the last runs');
    `completed`: every PE ended, so what the FIFOs hold was left unread."""
    run = {"region": region, "streams": sched.statistics(completed)}
    if sched.trace is not None:  # asked for by the run (`scheduler.tracing`): the newest run's alone
        run["trace"] = sched.traced()
        for older in _recorded:
            older.pop("trace", None)
    _recorded.append(run)
    del _recorded[:-8]


def recorded() -> list[dict]:
    return list(_recorded)


def snapshot(arrays: list, state: dict):
    """Copies of a run's inputs, taken before it writes into them."""
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else copy.deepcopy(a) for a in arrays], copy.deepcopy(
        state
    )


def diagnose(run, user_file: str, inputs, failed: Scheduler) -> dict | None:
    """`run(sched, arrays, state)` runs the region once; `failed` is the run that deadlocked."""
    declared = dict(failed.declarations)  # (file, line) -> (name, declared depth)
    if not declared:
        return None
    started = time.perf_counter()

    def attempt(depths: dict, counting: bool = False):
        """(how the re-run ended: DEADLOCKED, RAISED or COMPLETED, its scheduler)."""
        arrays, state = copy.deepcopy(inputs)
        sched = Scheduler(user_file, depths, counting, trace=0)  # a re-run traces nothing
        try:
            run(sched, arrays, state)
        except Deadlock:
            return DEADLOCKED, sched
        except Exception:  # noqa: BLE001 - past the deadlock, the design fails otherwise: depth was the cause
            return RAISED, sched
        finally:
            for key, value in sched.declarations.items():
                declared.setdefault(key, value)
        return COMPLETED, sched

    def completes(depths: dict) -> bool:
        """Whether the re-run gets past the deadlock without leaving elements unread."""
        ended, sched = attempt(depths)
        return ended == RAISED or (ended == COMPLETED and not sched.leftover())

    def over_budget() -> bool:
        return time.perf_counter() - started > BUDGET_S

    def uniform(depth: int) -> dict:
        return {k: max(d, depth) for k, (_, d) in declared.items()}

    u = max(2, 2 * max(d for _, d in declared.values()))
    while True:
        if over_budget():
            return _inconclusive(u // 2)
        ended, sched = attempt(uniform(u))
        if ended == COMPLETED and sched.leftover():
            return _unread(u, attempt(uniform(u), counting=True)[1])
        if ended != DEADLOCKED:
            break
        if u >= BOUND:
            return _imbalance(attempt(uniform(BOUND), counting=True)[1])
        u = min(2 * u, BOUND)
    deep = uniform(u)
    needed: dict = {}
    for key, (_, depth) in list(declared.items()):
        if over_budget():
            needed = {k: deep[k] for k in deep if deep[k] != declared[k][1]}
            break
        trial = dict(deep)
        trial[key] = depth
        if depth >= deep[key] or completes(trial):
            continue
        low, high = depth, deep[key]  # fails at low, completes at high
        while high - low > 1:
            mid = (low + high) // 2
            trial[key] = mid
            if completes(trial):
                high = mid
            else:
                low = mid
        needed[key] = high
    if needed and not completes({k: needed.get(k, d) for k, (_, d) in declared.items()}):
        needed = {k: deep[k] for k in needed}  # the minima interact: the uniform depth for those
    if not needed:
        return _inconclusive(u)
    streams = [
        {"stream": declared[k][0], "file": k[0], "line": k[1], "declared": declared[k][1], "depth": d}
        for k, d in sorted(needed.items(), key=lambda item: item[0][1])
    ]
    parts = ", ".join(f"`{s['stream']}` >= {s['depth']} (declared {s['declared']})" for s in streams)
    return {"kind": "depth", "streams": streams, "message": f"completes with depth of {parts}"}


def _inconclusive(depth: int) -> dict:
    return {
        "kind": "unknown",
        "largest_depth": depth,
        "message": f"the re-runs with larger FIFOs found no answer within {BUDGET_S:g} s (largest depth tried: {depth})",
    }


def _imbalance(sched: Scheduler) -> dict:
    """Per stream declaration: who put and got how many, where they differ or a PE stayed blocked."""
    per = _per_pe(sched)
    blocked = {}
    for pe in sched.parked():
        blocked.setdefault(pe.wait[0].name.split("[")[0], set()).add(pe.pe)
    unequal = [
        s
        for s in sorted(per)
        if s in blocked or sum(p for p, _ in per[s].values()) != sum(g for _, g in per[s].values())
    ]
    counts, listed = _counts(sched, per, unequal)
    message = f"no depth up to {BOUND} avoids it: a put/get imbalance ({listed})"
    return {"kind": "imbalance", "bound": BOUND, "counts": counts, "message": message}


def _unread(depth: int, sched: Scheduler) -> dict:
    """A re-run `depth` deep completed but left elements unread: the declarations that hold them,
    and who put and got how many there."""
    leftover = [
        {"stream": name, "file": key[0], "line": key[1], "elements": n}
        for key, (name, n) in sorted(sched.leftover().items(), key=lambda item: item[0][1])
    ]
    counts, listed = _counts(sched, _per_pe(sched), [s["stream"] for s in leftover])
    left = ", ".join(f"{_elements(s['elements'])} unread in `{s['stream']}`" for s in leftover)
    message = (
        f"with every FIFO {depth} deep the run completes but leaves {left}: a put/get imbalance, "
        f"not a depth problem ({listed})"
    )
    return {"kind": "imbalance", "completes_at": depth, "leftover": leftover, "counts": counts, "message": message}


def _elements(n: int) -> str:
    return f"{n} element{'s' * (n != 1)}"


def _per_pe(sched: Scheduler) -> dict[str, dict[str, list[int]]]:
    """Stream declaration -> PE -> [puts, gets] (of a counting run), every PE whose kernel uses it."""
    per: dict[str, dict[str, list[int]]] = {}
    for (fifo, pe, op), n in sched.counts.items():
        per.setdefault(fifo.split("[")[0], {}).setdefault(pe, [0, 0])[op == "get"] += n
    for stream, users in sched.users.items():
        for pe, _op in users:
            per.setdefault(stream, {}).setdefault(pe, [0, 0])
    return per


def _counts(sched: Scheduler, per: dict, streams: list[str]) -> tuple[list[dict], str]:
    """The puts and gets of each PE on `streams` (up to `DETAILED` in the result), and their words."""
    counts, parts = [], []
    for stream in streams:
        pes = per.get(stream, {})
        said = []
        for pe in sorted(pes, key=lambda pe: (not pes[pe][0], pe)):  # who puts, then who gets
            p, g = pes[pe]
            counts.append({"stream": stream, "pe": pe, "puts": p, "gets": g})
            ops = {op for user, op in sched.users.get(stream, ()) if user == pe}
            ops |= {op for op, n in (("put", p), ("get", g)) if n}
            said.append(f"{pe} " + " and ".join([f"puts {p}"] * ("put" in ops) + [f"gets {g}"] * ("get" in ops)))
        listed = "; ".join(said[:_LISTED]) + (f"; and {len(said) - _LISTED} more PEs" if len(said) > _LISTED else "")
        parts.append(f"{stream}: {listed}")
    return counts[:DETAILED], " | ".join(parts)
