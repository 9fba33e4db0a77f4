"""Edit -> diagnostics with default settings, push and pull, against the peer Python language servers.

    .venv/bin/python bench/peers.py [--json] [--quick] [--no-install] [--sizes 500,2000,10000] [--edits 200] [--budget 40]

Servers, one after another on each generated file (bench/generate.py), each with its defaults:
- allo-lsp (no `alloDataflow` settings sent: its default `debounceMs`);
- python-lsp-server (`pylsp`, pyflakes on; it lints 500 ms after the last change);
- jedi-language-server (diagnostics on change; 1 s after the last change).
The peers live in `.bench-venv/`, created on demand (`python3 -m venv .bench-venv && pip install
python-lsp-server pyflakes jedi-language-server`); `--no-install` (and `--quick`) never create it,
and a peer that is not there is reported as unavailable.

Push: each edit (a digit typed after an integer literal in the middle kernel, then deleted) is
timed from `didChange` to the server's `publishDiagnostics` for that version, as in
bench/latency.py. Pull: a client that announces pull support sends `textDocument/diagnostic`
(with the previous answer's resultId) right after each `didChange` and times its answer; a
server that does not advertise `diagnosticProvider` gets "not advertised". After each measured
edit, while the server idles, this process times `ast.parse` of the whole current text: every
p50 and p95 is also given as a ratio to that `ast.parse` p50, measured in the same run. Goals
(issue 18) for allo-lsp: p50 <= 1x and p95 <= 2x `ast.parse`, push and pull, at every size.

Also, in the same run, the batch cost: `allo-lsp check FILE --format json` against `pyflakes FILE`
on each file (process wall time, median of a few runs), and `python -c pass` as the floor.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import time

import common
from common import NOT_ADVERTISED, fmt_ms, fmt_x, goal, ratio
from generate import generate
from lsp_client import CAPABILITIES, LspServer, with_pull

FULL = {"sizes": (500, 2_000, 10_000), "edits": 200, "warmup": 2, "budget": 40.0, "batch_runs": 5}
QUICK = {"sizes": (300,), "edits": 2, "warmup": 0, "budget": 20.0, "batch_runs": 1}
OURS = "allo-lsp"
PEERS = ("pylsp", "jedi-language-server")
# The peers' diagnostics delay, as shipped (ours is read from this checkout's settings).
PEER_DEBOUNCE_MS = {"pylsp": 500, "jedi-language-server": 1000}


def servers(tools: dict[str, str | None]) -> dict[str, list[str] | None]:
    """name -> argv, None when unavailable. Every server runs with its default settings."""
    return {OURS: common.our_server(), **{name: [tools[name]] if tools[name] else None for name in PEERS}}


async def one_server(
    argv: list[str],
    ws: common.Workspace,
    uri: str,
    text: str,
    site: tuple[int, int],
    edits: int,
    warmup: int,
    budget: float,
    pull: bool,
    parse_times: list[float],
) -> dict | str:
    """The edit series of one server, push (publications) or pull (a client that pulls);
    `ast.parse` of the current text is timed into `parse_times` after each measured edit."""

    def idle(_i: int, current: str) -> None:
        t0 = time.perf_counter()
        ast.parse(current)
        parse_times.append(time.perf_counter() - t0)

    server = await LspServer.start(argv, cwd=str(ws.root))
    try:
        await server.initialize(ws.root, capabilities=with_pull(CAPABILITIES) if pull else CAPABILITIES)
        if pull and not server.pulls():
            return NOT_ADVERTISED
        opened = time.perf_counter()
        await server.open(uri, text)
        if pull:
            _, first = await common.pull_diagnostics(server, uri, None, 300)
        else:
            first = (await server.wait_diagnostics(uri, 1, 0, timeout=300)).time
        series = await common.edit_series(
            server, uri, text, site, edits, version=1, warmup=warmup, budget_s=budget, idle=idle, pull=pull
        )
        out = series.summary()
        out["first_diagnostics_after_open_ms"] = round((first - opened) * 1000, 3)
        return out
    except Exception as exc:  # noqa: BLE001 - one server failing does not end the comparison
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        await server.close()


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


async def measure(sizes, edits: int, warmup: int, budget: float, batch_runs: int, install: bool) -> dict:
    tools, unavailable = common.peer_tools(install)
    table = servers(tools)
    debounce = {OURS: common.our_debounce_ms(), **PEER_DEBOUNCE_MS}
    results = []
    with common.Workspace() as ws:
        for lines in sizes:
            generated = generate(lines)
            text, site = generated.text, generated.middle_site()
            path, uri = ws.write(f"generated_{lines}.py", text)
            parse_times: list[float] = []
            row: dict = {"lines": lines, "servers": {}}
            for name, argv in table.items():
                if argv is None:
                    row["servers"][name] = {"unavailable": unavailable}
                    continue
                push = await one_server(argv, ws, uri, text, site, edits, warmup, budget, False, parse_times)
                pull = await one_server(argv, ws, uri, text, site, edits, warmup, budget, True, parse_times)
                row["servers"][name] = {"debounce_ms": debounce[name], "push": push, "pull": pull}
            parse = common.stats_ms(parse_times)
            row["ast_parse"] = parse
            for figures in row["servers"].values():
                for mode in ("push", "pull"):
                    series = figures.get(mode)
                    if isinstance(series, dict) and "p50_ms" in series:
                        series["ratio_p50_to_ast_parse"] = ratio(series["p50_ms"], parse.get("p50_ms"))
                        series["ratio_p95_to_ast_parse"] = ratio(series["p95_ms"], parse.get("p50_ms"))
            ours = row["servers"][OURS]
            for mode in ("push", "pull"):
                series = ours[mode]
                measured = isinstance(series, dict) and series.get("ratio_p50_to_ast_parse") is not None
                row[f"goal_{mode}_p50_le_1x_ast"] = series["ratio_p50_to_ast_parse"] <= 1.0 if measured else None
                row[f"goal_{mode}_p95_le_2x_ast"] = series["ratio_p95_to_ast_parse"] <= 2.0 if measured else None
                for peer in PEERS:
                    theirs = row["servers"].get(peer, {}).get("push", {})
                    row[f"speedup_{mode}_vs_{peer}"] = (
                        ratio(theirs.get("p50_ms"), series.get("p50_ms")) if measured else None
                    )
            peers_p50 = [row["servers"].get(p, {}).get("push", {}).get("p50_ms") for p in PEERS]
            ours_p50 = ours["push"].get("p50_ms") if isinstance(ours["push"], dict) else None
            row["faster_than_both_default"] = (
                None if ours_p50 is None or None in peers_p50 else all(ours_p50 < x for x in peers_p50)
            )
            row["batch"] = batch(str(path), tools["pyflakes"], batch_runs)
            results.append(row)
    return {
        "peers_environment": str(common.BENCH_VENV),
        "peers_unavailable": unavailable,
        "peer_versions": versions(tools),
        "definition": "p50/p95 of didChange -> publishDiagnostics (push) or -> the textDocument/diagnostic answer "
        "(pull) per server, same edits, default settings; ratios to the p50 of ast.parse of the current text timed "
        "between edits; speedup = peer push p50 / ours p50 (> 1: ours faster); batch: process wall time, median",
        "sizes": results,
    }


def versions(tools: dict[str, str | None]) -> dict[str, str | None]:
    out = {}
    python = str(common.BENCH_VENV / "bin" / "python")
    for package, _module in (
        ("python-lsp-server", "pylsp"),
        ("jedi-language-server", "jedi_language_server"),
        ("pyflakes", "pyflakes"),
    ):
        if not any(tools.values()):
            out[package] = None
            continue
        try:
            done = subprocess.run(
                [python, "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                capture_output=True,
                text=True,
                timeout=30,
            )
            out[package] = done.stdout.strip() or None
        except (OSError, subprocess.TimeoutExpired):
            out[package] = None
    return out


def _series(label: str, series) -> str:
    if not isinstance(series, dict):
        return f"{label} {series}"
    if "unavailable" in series:
        return f"{label} unavailable"
    if "error" in series and "p50_ms" not in series:
        return f"{label} ERROR {series['error']}"
    return (
        f"{label} p50 {fmt_ms(series.get('p50_ms')):>9} ({fmt_x(series.get('ratio_p50_to_ast_parse'))}),"
        f" p95 {fmt_ms(series.get('p95_ms')):>9} ({fmt_x(series.get('ratio_p95_to_ast_parse'))}),"
        f" {series['edits']} edits" + (", budget-capped" if series.get("truncated_by_budget") else "")
    )


def summarize(result: dict) -> str:
    rows = ["Edit in a kernel -> diagnostics, default settings (ratios: to ast.parse of the file, same run)"]
    if result.get("peers_unavailable"):
        rows.append(f"  peers unavailable: {result['peers_unavailable']}")
    for r in result["sizes"]:
        rows.append(f"  {r['lines']} lines (ast.parse p50 {fmt_ms(r['ast_parse'].get('p50_ms'))}):")
        for name, s in r["servers"].items():
            if "unavailable" in s:
                rows.append(f"    {name:<21} unavailable")
                continue
            rows.append(f"    {name:<21} (debounce {s['debounce_ms']} ms)")
            rows.append("      " + _series("push", s["push"]))
            rows.append("      " + _series("pull", s["pull"]))
        for mode in ("push", "pull"):
            rows.append(
                f"    allo-lsp {mode}: p50 <= 1x {goal(r[f'goal_{mode}_p50_le_1x_ast'])}, p95 <= 2x"
                f" {goal(r[f'goal_{mode}_p95_le_2x_ast'])}; {fmt_x(r[f'speedup_{mode}_vs_pylsp'])} faster than pylsp,"
                f" {fmt_x(r[f'speedup_{mode}_vs_jedi-language-server'])} than jedi-language-server"
            )
        b = r["batch"]
        flakes = b["pyflakes"]
        rows.append(
            f"    batch: allo-lsp check {fmt_ms(b['allo_lsp_check'].get('p50_ms'))}, pyflakes "
            f"{fmt_ms(flakes.get('p50_ms')) if isinstance(flakes, dict) else 'unavailable'}"
            f" -> {fmt_x(b['ratio_check_to_pyflakes_p50'])}; python -c pass {fmt_ms(b['python_c_pass'].get('p50_ms'))}"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--no-install", action="store_true", help="do not create .bench-venv/ when the peers are missing")
    p.add_argument("--sizes", type=common.sizes, help="comma-separated line counts (default 500,2000,10000)")
    p.add_argument("--edits", type=int, help="measured edits per server and size (default 200)")
    p.add_argument(
        "--budget", type=float, help="seconds per server, size and mode before the series stops (default 40)"
    )
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    install = not (args.quick or args.no_install)
    return common.run("peers", lambda: measure(install=install, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
