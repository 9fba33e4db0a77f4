"""Cold start: from spawning `allo-lsp serve` to the first diagnostics of a 200-line file.

    .venv/bin/python bench/cold_start.py [--json] [--quick] [--runs 5] [--no-peers]

Each run spawns a fresh server, sends `initialize`, `initialized` and `didOpen` at once (as an
editor does) and stops the clock at the first `publishDiagnostics`. Goals: under 500 ms (issue
8), and within 1.05x the import floor (issue 18): a fresh interpreter importing what any pygls +
libcst server imports (`pygls.lsp.server`, `lsprotocol.types`, `libcst`), measured in the same run,
interleaved with the server's runs. Also whether `serve` imports any of jobs/, reports/, mlir/ or
numpy before it reads its input (`-X importtime`, stdin at its end). In the same run, for
comparison: spawn to exit of `python -c pass`; the peers' spawn-to-first-diagnostics when
.bench-venv/ exists (their debounce included: 500 ms for pylsp, 1 s for jedi-language-server);
and the top import costs of `allo-lsp serve` (`python -X importtime`: the total, per top-level
package, and the largest modules).
"""

from __future__ import annotations

import subprocess
import sys
import time

import common
from common import fmt_ms, fmt_x, goal, ratio
from generate import generate
from lsp_client import LspServer

FULL = {"runs": 5, "lines": 200}
QUICK = {"runs": 1, "lines": 200}
GOAL_MS = 500.0
STACK_IMPORTS = "import pygls.lsp.server, lsprotocol.types, libcst"
STACK_GOAL = 1.05  # issue 18: spawn -> first diagnostics within 1.05x the import floor
# What the first diagnostics need none of (issue 18 item 4).
NOT_BEFORE_DIAGNOSTICS = ("allo_lsp.jobs", "allo_lsp.reports", "allo_lsp.mlir", "numpy")


async def spawn_to_diagnostics(
    argv: list[str], ws: common.Workspace, uri: str, text: str, settings: dict | None = None
) -> dict:
    t0 = time.perf_counter()
    server = await LspServer.start(argv, settings=settings, cwd=str(ws.root))
    try:
        initialized = await server.initialize(ws.root, settings)
        await server.open(uri, text)
        first = await server.wait_diagnostics(uri, 1, 0, timeout=60)
        return {"initialize_s": initialized - t0, "diagnostics_s": first.time - t0}
    finally:
        await server.close()


def process_wall(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)
    return time.perf_counter() - t0


def import_times(top: int = 12) -> dict:
    """`python -X importtime -m allo_lsp serve` with stdin at EOF (it imports everything, then exits)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "allo_lsp", "serve"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        parts = line.removeprefix("import time:").split("|", 2)
        if len(parts) != 3:
            continue
        self_us, cumulative_us, name = parts
        name = name[1:]  # one space after the bar, then two per nesting level
        depth = (len(name) - len(name.lstrip(" "))) // 2
        rows.append((name.strip(), int(self_us), int(cumulative_us), depth))
    if not rows:
        return {"error": f"no -X importtime output (exit {done.returncode})"}
    names = [r[0] for r in rows]
    imported = {
        package: any(n == package or n.startswith(package + ".") for n in names) for package in NOT_BEFORE_DIAGNOSTICS
    }
    total_us = sum(r[1] for r in rows)
    largest = sorted(rows, key=lambda r: -r[1])[:top]
    by_package: dict[str, int] = {}
    for name, self_us, _, _ in rows:
        by_package[name.split(".")[0]] = by_package.get(name.split(".")[0], 0) + self_us
    return {
        "total_ms": round(total_us / 1000, 1),
        "imported_before_reading_input": imported,
        "largest_modules_self_ms": {r[0]: round(r[1] / 1000, 1) for r in largest},
        "by_package_self_ms": {
            k: round(v / 1000, 1) for k, v in sorted(by_package.items(), key=lambda kv: -kv[1])[:top]
        },
    }


async def measure(runs: int, lines: int, peers: bool) -> dict:
    text = generate(lines).text
    tools, unavailable = common.peer_tools(install=False) if peers else ({}, "not requested")
    argvs = {"allo-lsp": common.our_server()}
    if peers:
        for name in ("pylsp", "jedi-language-server"):
            if tools.get(name):
                argvs[name] = [tools[name]]
    samples: dict[str, list[dict]] = {name: [] for name in argvs}
    floor, stack = [], []
    errors = {}
    with common.Workspace() as ws:
        _, uri = ws.write(f"generated_{lines}.py", text)
        for _ in range(runs):  # interleaved: machine drift hits every figure alike
            for name, argv in argvs.items():
                try:
                    samples[name].append(await spawn_to_diagnostics(argv, ws, uri, text))
                except Exception as exc:  # noqa: BLE001
                    errors[name] = f"{type(exc).__name__}: {exc}"
            floor.append(process_wall([sys.executable, "-c", "pass"]))
            stack.append(process_wall([sys.executable, "-c", STACK_IMPORTS]))
    ours = common.stats_ms([s["diagnostics_s"] for s in samples["allo-lsp"]])
    out = {
        "lines": lines,
        "runs": runs,
        "allo_lsp": {
            "spawn_to_first_diagnostics": ours,
            "spawn_to_initialize_response": common.stats_ms([s["initialize_s"] for s in samples["allo-lsp"]]),
        },
        "python_c_pass": common.stats_ms(floor),
        "python_import_pygls_lsprotocol_libcst": common.stats_ms(stack),
        "ratio_to_python_c_pass": ratio(ours.get("p50_ms"), common.stats_ms(floor).get("p50_ms")),
        "ratio_to_stack_imports": ratio(ours.get("p50_ms"), common.stats_ms(stack).get("p50_ms")),
        "ratio_to_goal": ratio(ours.get("p50_ms"), GOAL_MS),
        "goal_within_1_05x_stack_imports": None
        if ratio(ours.get("p50_ms"), common.stats_ms(stack).get("p50_ms")) is None
        else ratio(ours.get("p50_ms"), common.stats_ms(stack).get("p50_ms")) <= STACK_GOAL,
        "goal_under_500ms": None if not ours.get("n") else ours["p50_ms"] < GOAL_MS,
        "peers": {
            name: common.stats_ms([s["diagnostics_s"] for s in samples[name]]) for name in argvs if name != "allo-lsp"
        },
        "peers_unavailable": unavailable,
        "import_time": import_times(),
    }
    if errors:
        out["errors"] = errors
    return out


def summarize(r: dict) -> str:
    ours = r["allo_lsp"]["spawn_to_first_diagnostics"]
    rows = [
        f"Cold start, {r['lines']}-line file, {r['runs']} runs (goal < {GOAL_MS:g} ms):",
        f"  allo-lsp spawn -> first diagnostics p50 {fmt_ms(ours.get('p50_ms'))} (max {fmt_ms(ours.get('max_ms'))});"
        f" goal met: {r['goal_under_500ms']}; initialize answered after {fmt_ms(r['allo_lsp']['spawn_to_initialize_response'].get('p50_ms'))}",
        f"  python -c pass {fmt_ms(r['python_c_pass'].get('p50_ms'))} ({fmt_x(r['ratio_to_python_c_pass'])});"
        f" importing pygls+lsprotocol+libcst {fmt_ms(r['python_import_pygls_lsprotocol_libcst'].get('p50_ms'))}"
        f" ({fmt_x(r['ratio_to_stack_imports'])}; {goal(r['goal_within_1_05x_stack_imports'])}: <= {STACK_GOAL}x)",
    ]
    for name, s in r["peers"].items():
        rows.append(f"  {name} spawn -> first diagnostics p50 {fmt_ms(s.get('p50_ms'))} (debounce included)")
    it = r["import_time"]
    if "error" not in it:
        top = ", ".join(f"{k} {v}" for k, v in list(it["by_package_self_ms"].items())[:8])
        rows.append(f"  imports of `allo-lsp serve`: {it['total_ms']} ms in all; by package (ms): {top}")
        early = [p for p, yes in it["imported_before_reading_input"].items() if yes]
        rows.append(
            f"  imported before `serve` reads its input: {', '.join(early) if early else 'none'} of {', '.join(NOT_BEFORE_DIAGNOSTICS)}"
        )
    if r.get("errors"):
        rows.append(f"  errors: {r['errors']}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--runs", type=int)
    p.add_argument("--no-peers", action="store_true", help="skip the peers' cold start even if .bench-venv/ exists")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    peers = not (args.no_peers or args.quick)
    return common.run("cold_start", lambda: measure(peers=peers, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
