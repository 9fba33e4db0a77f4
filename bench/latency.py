"""Analysis latency: a one-character edit in a kernel, `didChange` to `publishDiagnostics`.

    .venv/bin/python bench/latency.py [--json] [--quick] [--sizes 500,2000,10000] [--edits 200] [--budget 240]

For each generated file (bench/generate.py), `allo-lsp serve` runs over stdio with `debounceMs`
0 (in initializationOptions and in the workspace/configuration answer); the client inserts a
digit after an integer literal in an expression of the middle kernel's body, then deletes it,
alternately (the text stays valid), and times each edit from sending `didChange` to receiving
`publishDiagnostics` for that version (client side, `time.perf_counter`). After each edit, while
the server is idle, the client times CPython's `ast.parse` of the whole current text (and, less
often, `libcst.parse_module`): the figures are the ratios of the server's p50/p95 to those
parse times measured in the same run. Goal: p50 <= 1.0x and p95 <= 2.0x `ast.parse` (p50).

`--budget` caps each size's series in seconds (at least 5 edits are measured): a slow server
reports fewer edits, marked `truncated_by_budget`, instead of running for an hour.
"""

from __future__ import annotations

import ast
import gc
import time

import common
from common import fmt_ms, fmt_x, goal, ratio
from generate import generate
from lsp_client import LspServer

FULL = {"sizes": (500, 2_000, 10_000), "edits": 200, "warmup": 4, "budget": 240.0, "cst_every": 10, "cst_max": 20}
QUICK = {"sizes": (300,), "edits": 6, "warmup": 2, "budget": 30.0, "cst_every": 3, "cst_max": 2}


def _timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


async def measure_size(
    lines: int, edits: int, warmup: int, budget: float, cst_every: int, cst_max: int, full_analyze: int
) -> dict:
    import libcst
    from allo_lsp.analysis import analyze

    generated = generate(lines)
    text, site = generated.text, generated.middle_site()
    ast_times: list[float] = []
    cst_times: list[float] = []

    def idle(i: int, current: str) -> None:
        ast_times.append(_timed(ast.parse, current))
        if i % cst_every == 0 and len(cst_times) < cst_max:
            cst_times.append(_timed(libcst.parse_module, current))

    settings = {common.SECTION: {"debounceMs": 0}}
    with common.Workspace() as ws:
        _, uri = ws.write(f"generated_{lines}.py", text)
        server = await LspServer.start(common.our_server(), settings=settings, cwd=str(ws.root))
        try:
            await server.initialize(ws.root, settings)
            opened = time.perf_counter()
            await server.open(uri, text)
            first = await server.wait_diagnostics(uri, 1, 0, timeout=300)
            open_s = first.time - opened
            series = await common.edit_series(
                server, uri, text, site, edits, version=1, warmup=warmup, budget_s=budget, idle=idle
            )
        finally:
            await server.close()
    gc.collect()
    # The analysis itself, in this process (no protocol): what the server would cost without
    # any incrementality. A few samples, after the series (the server is gone).
    analyze_times = [_timed(analyze, text) for _ in range(full_analyze)]
    ours = series.summary()
    parse = common.stats_ms(ast_times)
    cst = common.stats_ms(cst_times)
    p50, p95 = ours.get("p50_ms"), ours.get("p95_ms")
    out = {
        "lines": lines,
        "bytes": len(text.encode()),
        "edit_site": {"line": site[0] + 1, "column": site[1] + 1, "text": text.split("\n")[site[0]].strip()},
        "first_diagnostics_after_open_ms": round(open_s * 1000, 3),
        "server": ours,
        "ast_parse": parse,
        "libcst_parse_module": cst,
        "full_analyze_in_process": common.stats_ms(analyze_times),
        "ratio_p50_to_ast_parse": ratio(p50, parse.get("p50_ms")),
        "ratio_p95_to_ast_parse": ratio(p95, parse.get("p50_ms")),
        "ratio_p50_to_libcst": ratio(p50, cst.get("p50_ms")),
        "ratio_p95_to_libcst": ratio(p95, cst.get("p50_ms")),
    }
    out["goal_p50_le_1x_ast"] = None if out["ratio_p50_to_ast_parse"] is None else out["ratio_p50_to_ast_parse"] <= 1.0
    out["goal_p95_le_2x_ast"] = None if out["ratio_p95_to_ast_parse"] is None else out["ratio_p95_to_ast_parse"] <= 2.0
    return out


async def measure(
    sizes, edits: int, warmup: int, budget: float, cst_every: int, cst_max: int, full_analyze: int
) -> dict:
    results = []
    for lines in sizes:
        results.append(await measure_size(lines, edits, warmup, budget, cst_every, cst_max, full_analyze))
    return {
        "settings": {"debounceMs": 0, "edits_per_size": edits, "warmup_edits": warmup, "budget_s_per_size": budget},
        "definition": "p50/p95 of didChange -> publishDiagnostics (that version), client side; ratios to the "
        "p50 of ast.parse / libcst.parse_module of the whole text, timed in the client while the server idles",
        "sizes": results,
    }


def summarize(result: dict) -> str:
    rows = ["Analysis latency (debounceMs 0): one-character edit in a kernel -> diagnostics"]
    for s in result["sizes"]:
        srv = s["server"]
        rows.append(
            f"  {s['lines']:>6} lines: p50 {fmt_ms(srv.get('p50_ms'))}, p95 {fmt_ms(srv.get('p95_ms'))} over {srv['edits']} edits"
            + (" (stopped by the time budget)" if srv.get("truncated_by_budget") else "")
            + (f" ERROR {srv['error']}" if srv.get("error") else "")
        )
        rows.append(
            f"         ast.parse p50 {fmt_ms(s['ast_parse'].get('p50_ms'))}, libcst p50 {fmt_ms(s['libcst_parse_module'].get('p50_ms'))},"
            f" in-process analyze p50 {fmt_ms(s['full_analyze_in_process'].get('p50_ms'))}"
        )
        rows.append(
            f"         vs ast.parse: p50 {fmt_x(s['ratio_p50_to_ast_parse'])} ({goal(s['goal_p50_le_1x_ast'])}: <= 1.0x),"
            f" p95 {fmt_x(s['ratio_p95_to_ast_parse'])} ({goal(s['goal_p95_le_2x_ast'])}: <= 2.0x);"
            f" vs libcst: p50 {fmt_x(s['ratio_p50_to_libcst'])}, p95 {fmt_x(s['ratio_p95_to_libcst'])}"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--sizes", type=common.sizes, help="comma-separated line counts (default 500,2000,10000)")
    p.add_argument("--edits", type=int, help="measured edits per size (default 200)")
    p.add_argument("--budget", type=float, help="seconds per size before the series stops (default 240)")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    full_analyze = 1 if args.quick else 3
    return common.run("latency", lambda: measure(full_analyze=full_analyze, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
