"""Edit -> diagnostics and first diagnostics, default settings, against the peer Python language servers, in one run.

    .venv/bin/python bench/peers.py [--json] [--quick] [--no-install] [--sizes 2000,10000] [--edits 200] [--budget 40]
                                    [--first-lines 2000] [--first-runs 5]

Servers (bench/peer_servers.py has the table, their defaults and the install): allo-lsp (this
checkout, no `alloDataflow` settings), ruff (`ruff server`), ty (`ty server`), pyrefly (`pyrefly
lsp`), basedpyright (`basedpyright-langserver --stdio`), python-lsp-server (pyflakes on) and
jedi-language-server. The peers live in `.bench-venv/`, pip-installed on demand (each package on
its own); `--no-install` and `--quick` never install. A peer that is missing or does not answer
`initialize` is reported unavailable, with the reason. No server is sent a setting.

The planted error: before its edits are timed, each server (each process, push and pull) opens a
small file and gets an undefined name planted into it by `didChange`, then (if it did not report
that) a syntax error, as jedi-language-server and allo-lsp report only those on plain Python; one
whose diagnostics of that version never show it is reported "no diagnostics for the planted
error" and not timed (it would look infinitely fast, or time out).

Edits: on a generated file of each size (bench/generate.py), the same one-character edits for
every server (a digit typed after an integer literal in the middle kernel, then deleted), timed
from `didChange` to the diagnostics of that version. Push: the `publishDiagnostics` that carries
the edit's version. A server that publishes without a version gets its first publication after
the `didChange`: the order of the edits matches them, since every edit waits for its diagnostics
and then for the server to idle, so a late publication of one edit cannot be taken for the next
one's (the summary counts unversioned publications; every peer measured so far sends versions).
Pull: a client that announces pull support (with dynamic registration, as VS Code: ty and
basedpyright register `textDocument/diagnostic` only then) sends `textDocument/diagnostic` (with
the previous answer's resultId) right after each `didChange` and times its answer; a server that
neither announces nor registers it gets "not advertised". All the servers' series run at once,
interleaved edit by edit (each round in a rotated order), so a drift of the machine's load falls on
every server alike; between two edits each server is left until its processes idle (at most one
CPU tick in 50 ms, for at most 3 s), so its trailing work does not land in the next one's timing.
`--budget` caps a series' own time (its edits and waits). After each measured edit this process
times `ast.parse` of the current text: p50 and p95 are also given as ratios to its p50.

First diagnostics: from spawning the server to the first `publishDiagnostics` of an open
`--first-lines` file (`initialize`, `initialized` and `didOpen` sent at once, a client that does
not pull), median of `--first-runs` runs, the servers interleaved run by run.

Ratios (issue 29's goals; printed, never asserted): allo-lsp / ruff per size and mode, p50 (goal
<= 1x) and p95 (goal <= 1.5x); allo-lsp / ty for the first diagnostics (goal <= 2x). Also kept:
the ratios to `ast.parse` (issue 18: p50 <= 1x, p95 <= 2x) and, in the same run, the batch cost:
`allo-lsp check FILE --format json` against `pyflakes FILE` (process wall time, median).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from dataclasses import dataclass, field

import common
import peer_servers
from common import NOT_ADVERTISED, EditSeries, fmt_ms, fmt_x, goal, ratio
from generate import generate
from peer_servers import OURS, PeerClient

FULL = {
    "sizes": (2_000, 10_000),
    "edits": 200,
    "warmup": 2,
    "budget": 40.0,
    "batch_runs": 5,
    "first_lines": 2_000,
    "first_runs": 5,
}
QUICK = {"sizes": (300,), "edits": 2, "warmup": 0, "budget": 20.0, "batch_runs": 1, "first_lines": 300, "first_runs": 1}
MODES = ("push", "pull")
RUFF, TY = "ruff", "ty"
GOAL_P50_TO_RUFF, GOAL_P95_TO_RUFF, GOAL_FIRST_TO_TY = 1.0, 1.5, 2.0
TIMEOUT_S = 120.0  # one edit's diagnostics
MIN_EDITS = 5  # measured before a budget can stop a series


@dataclass
class Typist:
    """One server's edit series in one mode, an edit at a time (to interleave the servers)."""

    name: str
    mode: str
    server: PeerClient
    uri: str
    site: tuple[int, int]
    texts: tuple[str, str]  # without the digit, with it
    budget_s: float
    series: EditSeries
    done: bool = False
    edits: int = 0  # warm-up included
    spent_s: float = 0.0
    not_idle: int = 0  # edits after which the server never idled within the cap
    result_id: str | None = None
    parse_times: list[float] = field(default_factory=list)

    async def step(self) -> None:
        s = self.series
        measured = self.edits - s.warmup
        if measured >= min(MIN_EDITS, s.requested) and self.spent_s > self.budget_s:
            s.truncated = self.done = True
            return
        started = time.perf_counter()
        s.version += 1
        after = self.server.sequence(self.uri)
        line, column = self.site
        inserted = self.edits % 2 == 0  # this edit types the digit; the next deletes it
        t0 = time.perf_counter()
        if inserted:
            await self.server.change(self.uri, s.version, line, column, column, "1")
        else:
            await self.server.change(self.uri, s.version, line, column, column + 1, "")
        try:
            if s.pull:
                report, received = await common.pull_diagnostics(self.server, self.uri, self.result_id, TIMEOUT_S)
                self.result_id = report.get("resultId")
                unchanged, count = report.get("kind") == "unchanged", len(report.get("items") or [])
            else:
                published = await self.server.wait_diagnostics(self.uri, s.version, after, TIMEOUT_S)
                received, unchanged, count = published.time, False, published.count
        except Exception as exc:  # noqa: BLE001 - a timeout or a dead server ends the series
            s.error, self.done = f"edit {self.edits}: {type(exc).__name__}: {exc}", True
            return
        if measured >= 0:
            s.latencies.append(received - t0)
            s.nonempty += count > 0
            s.unchanged += unchanged
            t1 = time.perf_counter()
            ast.parse(self.texts[inserted])
            self.parse_times.append(time.perf_counter() - t1)
            started += self.parse_times[-1]  # the baseline's time is not the series'
        self.not_idle += not await self.server.quiet()
        self.edits += 1
        self.spent_s += time.perf_counter() - started
        self.done = self.edits >= s.warmup + s.requested

    def summary(self) -> dict:
        out = self.series.summary()
        out["not_idle_after_edit"] = self.not_idle
        out["unversioned_publications"] = self.server.unversioned.get(self.uri, 0)
        return out


async def interleave(typists: list[Typist]) -> None:
    """One edit of each series in turn, the order rotated each round, until all are done."""
    turn = 0
    while live := [t for t in typists if not t.done]:
        for t in live[turn % len(live) :] + live[: turn % len(live)]:
            await t.step()
        turn += 1


async def one_size(lines: int, table: dict, ws: common.Workspace, cfg: dict, pulls: dict[str, bool]) -> dict:
    generated = generate(lines)
    text, site = generated.text, generated.middle_site()
    path, uri = ws.write(f"generated_{lines}.py", text)
    offset = common.offset_of(text, *site)
    texts = (text, text[:offset] + "1" + text[offset:])
    row: dict = {"lines": lines, "servers": {}}
    typists: list[Typist] = []
    try:
        for name, argv in table.items():
            if isinstance(argv, str):
                row["servers"][name] = {"unavailable": argv}
                continue
            figures: dict = {"debounce_ms": debounce_ms(name), "planted": {}}
            row["servers"][name] = figures
            for mode in MODES:
                if mode == "pull" and not pulls.get(name, True):
                    figures[mode] = NOT_ADVERTISED  # as it said at the first size
                    continue
                server, check = await peer_servers.start_session(argv, ws, uri, text, mode == "pull")
                if mode == "pull":
                    pulls[name] = check != NOT_ADVERTISED
                if server is None:
                    figures[mode] = check
                    if isinstance(check, dict) and "unavailable" in check:
                        row["servers"][name] = check
                        break
                    continue
                figures["planted"][mode] = check["planted"]
                series = EditSeries(warmup=cfg["warmup"], requested=cfg["edits"], version=1, pull=mode == "pull")
                typists.append(Typist(name, mode, server, uri, site, texts, cfg["budget"], series))
        await interleave(typists)
        for t in typists:
            row["servers"][t.name][t.mode] = t.summary()
    finally:
        for t in typists:
            await t.server.close()
    row["ast_parse"] = parse = common.stats_ms([s for t in typists for s in t.parse_times])
    for figures in row["servers"].values():
        for mode in MODES:
            s = figures.get(mode)
            if isinstance(s, dict) and "p50_ms" in s:
                s["ratio_p50_to_ast_parse"] = ratio(s["p50_ms"], parse.get("p50_ms"))
                s["ratio_p95_to_ast_parse"] = ratio(s["p95_ms"], parse.get("p50_ms"))
    compare(row)
    row["batch"] = batch(str(path), cfg["pyflakes"], cfg["batch_runs"])
    return row


def debounce_ms(name: str) -> int | None:
    if name == OURS:
        return common.our_debounce_ms()
    return next((p.debounce_ms for p in peer_servers.PEERS if p.name == name), None)


def _p(row: dict, name: str, mode: str, key: str) -> float | None:
    s = row["servers"].get(name, {}).get(mode)
    return s.get(key) if isinstance(s, dict) else None


def compare(row: dict) -> None:
    """Ours against each peer (ours / theirs, same mode) and the goals, into `row`."""
    row["ours_to"] = {
        name: {
            mode: {q: ratio(_p(row, OURS, mode, f"{q}_ms"), _p(row, name, mode, f"{q}_ms")) for q in ("p50", "p95")}
            for mode in MODES
        }
        for name in row["servers"]
        if name != OURS
    }
    for mode in MODES:
        to_ruff = row["ours_to"].get(RUFF, {}).get(mode, {})
        row[f"goal_{mode}_p50_le_ruff"] = None if to_ruff.get("p50") is None else to_ruff["p50"] <= GOAL_P50_TO_RUFF
        row[f"goal_{mode}_p95_le_1_5x_ruff"] = (
            None if to_ruff.get("p95") is None else to_ruff["p95"] <= GOAL_P95_TO_RUFF
        )
        to_parse = (_p(row, OURS, mode, "ratio_p50_to_ast_parse"), _p(row, OURS, mode, "ratio_p95_to_ast_parse"))
        row[f"goal_{mode}_p50_le_1x_ast"] = None if to_parse[0] is None else to_parse[0] <= 1.0
        row[f"goal_{mode}_p95_le_2x_ast"] = None if to_parse[1] is None else to_parse[1] <= 2.0
    peers_p50 = [_p(row, p, "push", "p50_ms") for p in ("pylsp", "jedi-language-server")]
    ours_p50 = _p(row, OURS, "push", "p50_ms")
    row["faster_than_both_default"] = (  # issue 18's goal, against the two peers it had
        None if ours_p50 is None or None in peers_p50 else all(ours_p50 < x for x in peers_p50)
    )


async def first_diagnostics(argvs: dict[str, list[str]], lines: int, runs: int) -> dict:
    text = generate(lines).text
    samples: dict[str, list[float]] = {name: [] for name in argvs}
    errors: dict[str, str] = {}
    with common.Workspace() as ws:  # the file alone: a server that scans its workspace finds nothing else
        _, uri = ws.write(f"generated_{lines}.py", text)
        for _ in range(runs):
            for name, argv in argvs.items():
                if name in errors:
                    continue
                try:
                    samples[name].append(await peer_servers.spawn_to_first_diagnostics(argv, ws, uri, text))
                except Exception as exc:  # noqa: BLE001
                    errors[name] = f"{type(exc).__name__}: {exc}"
    servers = {name: errors.get(name) or common.stats_ms(samples[name]) for name in argvs}
    ours = servers.get(OURS, {})

    def to(name: str) -> float | None:
        theirs = servers.get(name)
        return ratio(ours.get("p50_ms"), theirs.get("p50_ms")) if isinstance(theirs, dict) else None

    return {
        "lines": lines,
        "runs": runs,
        "servers": servers,
        "ours_to": {name: to(name) for name in argvs if name != OURS},
        "goal_within_2x_ty": None if to(TY) is None else to(TY) <= GOAL_FIRST_TO_TY,
    }


def wall(argv: list[str], timeout: float = 600) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    return time.perf_counter() - t0, done.returncode


def batch(path: str, pyflakes: str | None, runs: int) -> dict:
    """`allo-lsp check` vs `pyflakes` on one file, interleaved, with `python -c pass` as the floor."""
    ours, theirs, floor = [], [], []
    codes: dict[str, set[int]] = {"allo-lsp check": set(), "pyflakes": set()}
    for _ in range(runs):
        s, code = wall([*common.our_cli(), "check", path, "--format", "json"])
        ours.append(s)
        codes["allo-lsp check"].add(code)
        if pyflakes:
            s, code = wall([pyflakes, path])
            theirs.append(s)
            codes["pyflakes"].add(code)
        floor.append(wall([sys.executable, "-c", "pass"])[0])
    a, b = common.stats_ms(ours), common.stats_ms(theirs)
    return {
        "allo_lsp_check": a,
        "pyflakes": b if pyflakes else "unavailable",
        "python_c_pass": common.stats_ms(floor),
        "exit_codes": {k: sorted(v) for k, v in codes.items()},
        "ratio_check_to_pyflakes_p50": ratio(a.get("p50_ms"), b.get("p50_ms")) if pyflakes else None,
    }


async def measure(sizes, edits, warmup, budget, batch_runs, first_lines, first_runs, install: bool) -> dict:
    found, pyflakes = peer_servers.locate(install)
    table = {OURS: common.our_server(), **found}
    cfg = {"edits": edits, "warmup": warmup, "budget": budget, "batch_runs": batch_runs, "pyflakes": pyflakes}
    pulls: dict[str, bool] = {}  # whether each server offers pull diagnostics, once seen
    with common.Workspace() as ws:
        rows = [await one_size(lines, table, ws, cfg, pulls) for lines in sizes]
    checked = {  # the servers that reported the planted error (pushed) at some size
        name: argv
        for name, argv in table.items()
        if any(r["servers"][name].get("planted", {}).get("push") for r in rows)
    }
    first = await first_diagnostics(checked, first_lines, first_runs)
    for name in table:
        if name not in checked:
            first["servers"][name] = "not measured: unavailable, or no diagnostics for the planted error"
    installed = peer_servers.versions()
    return {
        "peers_environment": str(common.BENCH_VENV),
        "servers": {
            OURS: {"argv": table[OURS], "settings_sent": "none", "notes": "this checkout"},
            **{
                p.name: {
                    "argv": table[p.name] if isinstance(table[p.name], list) else None,
                    "unavailable": None if isinstance(table[p.name], list) else table[p.name],
                    "version": installed.get(p.packages[0]),
                    "settings_sent": "none",
                    "notes": p.notes,
                }
                for p in peer_servers.PEERS
            },
        },
        "peer_versions": installed,
        "definition": "p50/p95 of didChange -> publishDiagnostics of that version (push) or -> the "
        "textDocument/diagnostic answer (pull), the same edits for every server, default settings, all servers "
        "interleaved edit by edit; ours_to: ours / theirs, same mode; ratio_*_to_ast_parse: to the p50 of ast.parse "
        "of the current text timed between edits; first diagnostics: spawn -> first publishDiagnostics of an open "
        "file, median; batch: process wall time, median",
        "sizes": rows,
        "first_diagnostics": first,
        "goals": goals(rows, first),
    }


def goals(rows: list[dict], first: dict) -> dict:
    """Issue 29's goals in this run (None: not measured); printed, never asserted."""
    out = {}
    for r in rows:
        for mode in MODES:
            out[f"{mode}_{r['lines']}_p50_le_ruff"] = r[f"goal_{mode}_p50_le_ruff"]
            out[f"{mode}_{r['lines']}_p95_le_1_5x_ruff"] = r[f"goal_{mode}_p95_le_1_5x_ruff"]
    out[f"first_diagnostics_{first['lines']}_within_2x_ty"] = first["goal_within_2x_ty"]
    return out


# -- the summary ------------------------------------------------------------------------------------


def _cell(s) -> str:
    """p50, p95 and the number of edits of a series, or why there is none."""
    if not isinstance(s, dict):
        return f"{s or '—':<30}"
    if "p50_ms" in s:
        capped = "*" if s.get("truncated_by_budget") else " "
        return f"{fmt_ms(s['p50_ms']):>9} {fmt_ms(s['p95_ms']):>9} {s['edits']:>4}{capped}" + " " * 5
    if "error" in s:
        return f"ERROR {s['error']}"[:30].ljust(30)
    return f"{s.get('skipped') or s.get('unavailable') or s}"[:30].ljust(30)


def _ratio_goal(value: float | None, limit: float) -> str:
    return f"{fmt_x(value)} ({goal(None if value is None else value <= limit)}: <= {limit:g}x)"


def summarize(result: dict) -> str:
    servers = result["servers"]
    named = [f"{n} {s['version']}" for n, s in servers.items() if s.get("version")]
    rows = [
        "Edit in a kernel -> diagnostics of that version; default settings (none sent); all servers interleaved",
        f"  servers: allo-lsp (this checkout), {', '.join(named)}",
    ]
    rows += [f"  {n} unavailable: {s['unavailable']}" for n, s in servers.items() if s.get("unavailable")]
    for r in result["sizes"]:
        rows.append(f"  {r['lines']:,} lines (ast.parse p50 {fmt_ms(r['ast_parse'].get('p50_ms'))}):")
        rows.append(
            f"    {'server':<21} {'push p50':>9} {'p95':>9} {'n':>4}      {'pull p50':>9} {'p95':>9} {'n':>4}      planted error"
        )
        for name, s in r["servers"].items():
            if "unavailable" in s:
                rows.append(f"    {name:<21} unavailable" + ("" if name in servers else f": {s['unavailable']}"))
                continue
            planted = ", ".join(sorted(set(s.get("planted", {}).values()))) or "—"
            rows.append(f"    {name:<21} {_cell(s.get('push'))} {_cell(s.get('pull'))} {planted}")
        for name, s in r["servers"].items():
            for mode in MODES:
                m = s.get(mode)
                if isinstance(m, dict) and m.get("why"):
                    rows.append(f"      {name} {mode}: {m['skipped']} ({m['why']})")
                if isinstance(m, dict) and (m.get("unversioned_publications") or m.get("not_idle_after_edit")):
                    rows.append(
                        f"      {name} {mode}: {m['unversioned_publications']} publications without a version,"
                        f" {m['not_idle_after_edit']} edits after which it did not idle within 3 s"
                    )
        for mode in MODES:
            to_ruff = r["ours_to"].get(RUFF, {}).get(mode, {})
            rows.append(
                f"    allo-lsp / ruff, {mode}: p50 {_ratio_goal(to_ruff.get('p50'), GOAL_P50_TO_RUFF)},"
                f" p95 {_ratio_goal(to_ruff.get('p95'), GOAL_P95_TO_RUFF)}"
            )
        ours = r["servers"].get(OURS, {})
        rows.append(
            "    allo-lsp / ast.parse p50: "
            + "; ".join(
                f"{mode} p50 {fmt_x(ours[mode].get('ratio_p50_to_ast_parse'))}, p95 {fmt_x(ours[mode].get('ratio_p95_to_ast_parse'))}"
                for mode in MODES
                if isinstance(ours.get(mode), dict)
            )
        )
        b = r["batch"]
        flakes = b["pyflakes"]
        rows.append(
            f"    batch: allo-lsp check {fmt_ms(b['allo_lsp_check'].get('p50_ms'))}, pyflakes "
            f"{fmt_ms(flakes.get('p50_ms')) if isinstance(flakes, dict) else 'unavailable'}"
            f" -> {fmt_x(b['ratio_check_to_pyflakes_p50'])}; python -c pass {fmt_ms(b['python_c_pass'].get('p50_ms'))}"
        )
    rows.append("  (* capped by --budget; n: measured edits)")
    f = result["first_diagnostics"]
    rows.append(
        f"  Process start -> first diagnostics of an open {f['lines']:,}-line file (median of {f['runs']}, interleaved):"
    )
    for name, s in f["servers"].items():
        rows.append(
            f"    {name:<21} "
            + (f"{fmt_ms(s.get('p50_ms')):>9} (max {fmt_ms(s.get('max_ms'))})" if isinstance(s, dict) else s)
        )
    rows.append(
        f"    allo-lsp / ty {_ratio_goal(f['ours_to'].get(TY), GOAL_FIRST_TO_TY)}; allo-lsp / ruff {fmt_x(f['ours_to'].get(RUFF))}"
    )
    rows.append("  notes: " + "; ".join(f"{n}: {s['notes']}" for n, s in servers.items() if n != OURS))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--no-install", action="store_true", help="do not install missing peers into .bench-venv/")
    p.add_argument("--sizes", type=common.sizes, help="comma-separated line counts (default 2000,10000)")
    p.add_argument("--edits", type=int, help="measured edits per server, size and mode (default 200)")
    p.add_argument(
        "--budget", type=float, help="seconds of one series (server, size, mode) before it stops (default 40)"
    )
    p.add_argument("--first-lines", type=int, help="lines of the file whose first diagnostics are timed (default 2000)")
    p.add_argument("--first-runs", type=int, help="runs per server of the first diagnostics (default 5)")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    install = not (args.quick or args.no_install)
    return common.run("peers", lambda: measure(install=install, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
