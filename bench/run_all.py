"""All the performance benchmarks (issues 8, 18 and 29), one after another, on this machine, in one run.

    .venv/bin/python bench/run_all.py [--json] [--quick] [--no-install] [--only latency,peers,...]

0. generate    bench/generate.py: the generated files are exact, deterministic and analyse cleanly
1. latency     bench/latency.py: edit -> diagnostics (debounceMs 0) against ast.parse and libcst
2. peers       bench/peers.py: default settings, push and pull, against ruff, ty, pyrefly,
               basedpyright, pylsp and jedi-language-server (each checked to report a planted
               error first) and ast.parse; first diagnostics against the same; check vs pyflakes
3. burst       bench/burst.py: 50 keystrokes 30 ms apart -> the last one's diagnostics; analyses at once
4. workspace   bench/workspace.py: workspace diagnostics of 200 files; hovers meanwhile
5. hover_lens  bench/hover_lens.py: hover and code lens on a 10,000-line file
6. cold_start  bench/cold_start.py: spawn -> first diagnostics, against the import floor; import costs
7. job_start   bench/job_start.py: alloDataflow.run -> user code running, against a cold interpreter
8. memory      bench/memory.py: RSS with 100 files open, growth over 10,000 edits

Each runs in its own process (`bench/NAME.py --json`, with a timeout), so one failing or hanging
is reported and the others still run. `--quick` runs them all with small sizes and counts and
installs nothing (the tests use it). The full run takes about 20 minutes on a 2-CPU machine:
the series are capped by time budgets (see each script's `--budget`), and a capped series says so.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import common

SCRIPTS = ("latency", "peers", "burst", "workspace", "hover_lens", "cold_start", "job_start", "memory")
TIMEOUT_S = {"full": 3600, "quick": 300}


def generator_check(quick: bool) -> dict:
    from allo_lsp.analysis import analyze
    from generate import SIZES, generate

    sizes = (300, 500) if quick else SIZES
    out = []
    for lines in sizes:
        t0 = time.perf_counter()
        g = generate(lines)
        generate_s = time.perf_counter() - t0
        problems = analyze(g.text).problems
        out.append(
            {
                "lines": lines,
                "exact": g.text.count("\n") == lines,
                "deterministic": generate(lines).text == g.text,
                "problems": len(problems),
                "regions": len(g.regions),
                "tests": len(g.tests),
                "edit_sites": len(g.edit_sites),
                "generate_ms": round(generate_s * 1000, 1),
            }
        )
    return {
        "benchmark": "generate",
        "sizes": out,
        "ok": all(s["exact"] and s["deterministic"] and s["problems"] == 0 for s in out),
    }


def run_script(name: str, quick: bool, no_install: bool) -> dict:
    argv = [sys.executable, str(common.BENCH / f"{name}.py"), "--json"]
    if quick:
        argv.append("--quick")
    if no_install and name == "peers":
        argv.append("--no-install")
    timeout = TIMEOUT_S["quick" if quick else "full"]
    print(f"bench: {name} ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=str(common.ROOT))
    except subprocess.TimeoutExpired:
        return {"benchmark": name, "error": f"timed out after {timeout} s"}
    print(f"bench: {name} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip()[-800:]
        return {"benchmark": name, "error": f"exit {done.returncode}, no JSON: {tail}"}
    result.pop("machine", None)  # one for the whole run
    return result


def goals(results: dict) -> dict:
    """The issue's goals, each True/False/None (None: not measured)."""
    g: dict = {}
    gen = results.get("generate", {})
    g["generator_output_clean"] = gen.get("ok")
    for s in results.get("latency", {}).get("sizes", []):
        g[f"latency_{s['lines']}_p50_le_1x_ast_parse"] = s.get("goal_p50_le_1x_ast")
        g[f"latency_{s['lines']}_p95_le_2x_ast_parse"] = s.get("goal_p95_le_2x_ast")
    for s in results.get("peers", {}).get("sizes", []):
        for mode in ("push", "pull"):
            g[f"default_{mode}_{s['lines']}_p50_le_1x_ast_parse"] = s.get(f"goal_{mode}_p50_le_1x_ast")
            g[f"default_{mode}_{s['lines']}_p95_le_2x_ast_parse"] = s.get(f"goal_{mode}_p95_le_2x_ast")
        g[f"peers_{s['lines']}_default_faster_than_both"] = s.get("faster_than_both_default")
        for mode in ("push", "pull"):  # issue 29's, against Ruff's server in the same run
            g[f"{mode}_{s['lines']}_p50_le_ruff"] = s.get(f"goal_{mode}_p50_le_ruff")
            g[f"{mode}_{s['lines']}_p95_le_1_5x_ruff"] = s.get(f"goal_{mode}_p95_le_1_5x_ruff")
    g["first_diagnostics_within_2x_ty"] = results.get("peers", {}).get("first_diagnostics", {}).get("goal_within_2x_ty")
    for s in results.get("burst", {}).get("sizes", []):
        g[f"burst_{s['lines']}_last_keystroke_le_1x_ast_parse"] = s.get("goal_last_le_1x_ast")
        g[f"burst_{s['lines']}_one_analysis_at_a_time"] = s.get("goal_one_at_a_time")
    g["workspace_hover_p50_under_3ms"] = results.get("workspace", {}).get("goal_hover_p50_under_3ms")
    hl = results.get("hover_lens", {})
    g["hover_p50_under_3ms"] = hl.get("goal_hover_p50_under_3ms")
    g["code_lens_p50_under_3ms"] = hl.get("goal_lens_p50_under_3ms")
    g["cold_start_under_500ms"] = results.get("cold_start", {}).get("goal_under_500ms")
    g["cold_start_within_1_05x_import_floor"] = results.get("cold_start", {}).get("goal_within_1_05x_stack_imports")
    g["job_start_3x_faster_than_cold"] = results.get("job_start", {}).get("goal_speedup_ge_3x")
    mem = results.get("memory", {})
    g["memory_open_under_150mb"] = mem.get("goal_open_under_150mb")
    growth = mem.get("goal_growth_under_10mb")
    g["memory_growth_under_10mb"] = growth if growth is not None else mem.get("goal_growth_under_10mb_projected")
    return g


def summarize(result: dict) -> str:
    import burst
    import cold_start
    import hover_lens
    import job_start
    import latency
    import memory
    import peers
    import workspace

    modules = {
        "latency": latency,
        "peers": peers,
        "burst": burst,
        "workspace": workspace,
        "hover_lens": hover_lens,
        "cold_start": cold_start,
        "job_start": job_start,
        "memory": memory,
    }
    m = result["machine"]
    rows = [
        f"allo-lsp performance (issues 8 and 18) on {m['cpus']} CPUs, Python {m['python']}, load {m['loadavg']}"
        + (" [quick]" if result["quick"] else ""),
        "",
    ]
    gen = result["results"].get("generate", {})
    rows.append(
        "Generated files: "
        + ", ".join(
            f"{s['lines']} lines ({s['regions']} regions, {s['problems']} problems)" for s in gen.get("sizes", [])
        )
    )
    for name, module in modules.items():
        r = result["results"].get(name)
        if r is None:
            continue
        rows.append("")
        # A top-level "error" means the script failed (its own findings are nested or named otherwise).
        rows.append(f"{name}: FAILED: {r['error']}" if "error" in r else module.summarize(r))
    rows += ["", "Goals:"]
    rows += [f"  {'yes' if ok else ('NO ' if ok is False else 'n/a')}  {k}" for k, ok in result["goals"].items()]
    rows.append(f"\n(total {result['wall_s']} s)")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--no-install", action="store_true", help="do not create .bench-venv/ for the peer servers")
    p.add_argument("--only", help=f"comma-separated subset of: generate,{','.join(SCRIPTS)}")
    args = p.parse_args(argv)
    common.require_allo_lsp()
    chosen = args.only.split(",") if args.only else ["generate", *SCRIPTS]
    unknown = set(chosen) - {"generate", *SCRIPTS}
    if unknown:
        p.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    started = time.perf_counter()
    machine = common.machine()
    results: dict = {}
    if "generate" in chosen:
        results["generate"] = generator_check(args.quick)
    for name in SCRIPTS:
        if name in chosen:
            results[name] = run_script(name, args.quick, args.no_install or args.quick)
    result = {
        "benchmark": "all",
        "quick": bool(args.quick),
        "machine": machine,
        "machine_after": {"loadavg": common.machine()["loadavg"]},
        "goals": goals(results),
        "results": results,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(result, indent=1) if args.json else summarize(result))
    failed = [name for name, r in results.items() if "error" in r and name != "generate"]
    return 1 if failed or not results.get("generate", {"ok": True})["ok"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
