"""Versus the peer Python language servers: the same edit workload, default settings on each side.

    .venv/bin/python bench/peers.py [--json] [--quick] [--no-install] [--sizes 500,2000,10000] [--edits 200] [--budget 60]

Servers, one after another on each generated file (bench/generate.py):
- allo-lsp with its defaults (debounceMs 200), and allo-lsp with debounceMs 0;
- python-lsp-server (`pylsp`, pyflakes on; it lints 500 ms after the last change);
- jedi-language-server (diagnostics on change; 1 s after the last change).
The peers live in `.bench-venv/`, created on demand (`python3 -m venv .bench-venv && pip install
python-lsp-server pyflakes jedi-language-server`); `--no-install` (and `--quick`) never create it,
and a peer that is not there is reported as unavailable. Each edit is timed from `didChange` to
the server's `publishDiagnostics` for that version, as in bench/latency.py. Goal: allo-lsp faster
than both peers, with its default debounce too.

Also, in the same run, the batch cost: `allo-lsp check FILE --format json` against `pyflakes FILE`
on each file (process wall time, median of a few runs), and `python -c pass` as the floor.
"""

from __future__ import annotations

import subprocess
import sys
import time

import common
from common import fmt_ms, fmt_x, ratio
from generate import generate
from lsp_client import LspServer

FULL = {"sizes": (500, 2_000, 10_000), "edits": 200, "warmup": 2, "budget": 60.0, "batch_runs": 5}
QUICK = {"sizes": (300,), "edits": 2, "warmup": 0, "budget": 20.0, "batch_runs": 1}

# name -> (debounce of its diagnostics in ms, as shipped)
DEBOUNCE_MS = {
    "allo-lsp default": common.OUR_DEFAULT_DEBOUNCE_MS,
    "allo-lsp debounce 0": 0,
    "pylsp": 500,
    "jedi-language-server": 1000,
}


def servers(tools: dict[str, str | None]) -> dict[str, tuple[list[str] | None, dict | None]]:
    """name -> (argv or None when unavailable, settings for initializationOptions/configuration)."""
    return {
        "allo-lsp default": (common.our_server(), None),
        "allo-lsp debounce 0": (common.our_server(), {common.SECTION: {"debounceMs": 0}}),
        "pylsp": ([tools["pylsp"]] if tools["pylsp"] else None, None),
        "jedi-language-server": ([tools["jedi-language-server"]] if tools["jedi-language-server"] else None, None),
    }


async def one_server(
    argv: list[str],
    settings: dict | None,
    ws: common.Workspace,
    uri: str,
    text: str,
    site: tuple[int, int],
    edits: int,
    warmup: int,
    budget: float,
) -> dict:
    server = await LspServer.start(argv, settings=settings, cwd=str(ws.root))
    try:
        await server.initialize(ws.root, settings)
        opened = time.perf_counter()
        await server.open(uri, text)
        first = await server.wait_diagnostics(uri, 1, 0, timeout=300)
        series = await common.edit_series(server, uri, text, site, edits, version=1, warmup=warmup, budget_s=budget)
        out = series.summary()
        out["first_diagnostics_after_open_ms"] = round((first.time - opened) * 1000, 3)
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
    results = []
    with common.Workspace() as ws:
        for lines in sizes:
            generated = generate(lines)
            text, site = generated.text, generated.middle_site()
            path, uri = ws.write(f"generated_{lines}.py", text)
            row: dict = {"lines": lines, "servers": {}}
            for name, (argv, settings) in table.items():
                if argv is None:
                    row["servers"][name] = {"unavailable": unavailable}
                    continue
                result = await one_server(argv, settings, ws, uri, text, site, edits, warmup, budget)
                result["debounce_ms"] = DEBOUNCE_MS[name]
                row["servers"][name] = result
            s = row["servers"]

            def p50(name: str) -> float | None:
                return s.get(name, {}).get("p50_ms")  # noqa: B023 - called in this iteration only

            peers_p50 = [p50(n) for n in ("pylsp", "jedi-language-server")]
            for ours in ("allo-lsp default", "allo-lsp debounce 0"):
                key = "default" if ours == "allo-lsp default" else "debounce0"
                row[f"speedup_{key}_vs_pylsp"] = ratio(p50("pylsp"), p50(ours))
                row[f"speedup_{key}_vs_jedi"] = ratio(p50("jedi-language-server"), p50(ours))
                row[f"faster_than_both_{key}"] = (
                    None if p50(ours) is None or None in peers_p50 else all(p50(ours) < x for x in peers_p50)
                )
            row["batch"] = batch(str(path), tools["pyflakes"], batch_runs)
            results.append(row)
    return {
        "peers_environment": str(common.BENCH_VENV),
        "peers_unavailable": unavailable,
        "peer_versions": versions(tools),
        "definition": "p50/p95 of didChange -> publishDiagnostics per server, same edits; speedup = peer p50 / ours p50 "
        "(> 1: ours faster); batch: process wall time, median",
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


def summarize(result: dict) -> str:
    rows = ["Versus peer servers (default settings): edit in a kernel -> diagnostics"]
    if result.get("peers_unavailable"):
        rows.append(f"  peers unavailable: {result['peers_unavailable']}")
    for r in result["sizes"]:
        rows.append(f"  {r['lines']} lines:")
        for name, s in r["servers"].items():
            if "unavailable" in s:
                rows.append(f"    {name:<22} unavailable")
            elif "error" in s and "p50_ms" not in s:
                rows.append(f"    {name:<22} ERROR {s['error']}")
            else:
                rows.append(
                    f"    {name:<22} p50 {fmt_ms(s.get('p50_ms')):>10}  p95 {fmt_ms(s.get('p95_ms')):>10}"
                    f"  ({s['edits']} edits, debounce {s['debounce_ms']} ms"
                    + (", publishes diagnostics)" if s.get("nonempty_publications") else ")")
                    + (" budget-capped" if s.get("truncated_by_budget") else "")
                )
        for key, label in (("default", "allo-lsp default"), ("debounce0", "allo-lsp debounce 0")):
            rows.append(
                f"    {label}: {fmt_x(r[f'speedup_{key}_vs_pylsp'])} faster than pylsp,"
                f" {fmt_x(r[f'speedup_{key}_vs_jedi'])} than jedi-language-server;"
                f" faster than both: {r[f'faster_than_both_{key}']}"
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
    p.add_argument("--budget", type=float, help="seconds per server and size before the series stops (default 60)")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    install = not (args.quick or args.no_install)
    return common.run("peers", lambda: measure(install=install, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
