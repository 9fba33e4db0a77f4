"""Memory: the server's RSS with 100 open files, and its growth over 10,000 edits.

    .venv/bin/python bench/memory.py [--json] [--quick] [--files 100] [--lines 500] [--edits 10000] [--budget 300] [--no-peers]

`allo-lsp serve` (debounceMs 0) opens 100 different generated files of 500 lines (bench/generate.py,
one seed each) and the client waits for every file's diagnostics; RSS is read from
/proc/<pid>/status (VmRSS; VmHWM is the peak) before and after. Then one-character edits in a
kernel of one of the files (as in bench/latency.py, each waiting for its diagnostics), with RSS
sampled along the way: growth = RSS after the edits minus RSS after opening. Goals: under 150 MB
with the files open, under 10 MB of growth over 10,000 edits.

`--budget` caps the edit phase in seconds: a slower server makes fewer edits, reported as such,
together with the growth per 1,000 edits (least-squares slope of the samples after the first
tenth) and that slope taken to 10,000 edits. For comparison, in the same run: the RSS of the
idle server, and of pylsp and jedi-language-server with the same files open when .bench-venv/
exists.
"""

from __future__ import annotations

import time

import common
from common import ratio
from generate import generate
from lsp_client import LspServer, rss_kb

FULL = {"files": 100, "lines": 500, "edits": 10_000, "budget": 300.0, "sample_every": 250}
QUICK = {"files": 4, "lines": 200, "edits": 12, "budget": 30.0, "sample_every": 4}
GOAL_OPEN_MB = 150.0
GOAL_GROWTH_MB = 10.0
MIN_EDITS_FOR_SLOPE = 200  # fewer edits give no meaningful growth rate


def mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


async def open_all(server: LspServer, docs: list[tuple[str, str]], timeout: float) -> float:
    """Open every file, then wait for every file's first diagnostics; seconds taken."""
    t0 = time.perf_counter()
    for uri, text in docs:
        await server.open(uri, text)
    deadline = t0 + timeout
    for uri, _ in docs:
        await server.wait_diagnostics(uri, 1, 0, timeout=max(1.0, deadline - time.perf_counter()))
    return time.perf_counter() - t0


def slope_per_1000(samples: list[tuple[int, int]]) -> float | None:
    """Least-squares growth in kB per 1,000 edits over (edits, kB) samples."""
    if len(samples) < 3:
        return None
    xs, ys = [s[0] for s in samples], [s[1] for s in samples]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den * 1000


async def peer_rss(argv: list[str], ws: common.Workspace, docs: list[tuple[str, str]]) -> dict:
    server = await LspServer.start(argv, cwd=str(ws.root))
    try:
        await server.initialize(ws.root)
        idle = rss_kb(server.pid)["VmRSS"]
        seconds = await open_all(server, docs, timeout=600)
        after = rss_kb(server.pid)
        return {
            "idle_mb": mb(idle),
            "open_mb": mb(after["VmRSS"]),
            "peak_mb": mb(after["VmHWM"]),
            "open_all_s": round(seconds, 2),
        }
    except Exception as exc:  # noqa: BLE001
        return {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        await server.close()


async def measure(files: int, lines: int, edits: int, budget: float, sample_every: int, peers: bool) -> dict:
    settings = {common.SECTION: {"debounceMs": 0}}
    generated = [generate(lines, seed=1000 + k) for k in range(files)]
    with common.Workspace() as ws:
        docs = [(ws.write(f"design_{k:03}.py", g.text)[1], g.text) for k, g in enumerate(generated)]
        server = await LspServer.start(common.our_server(), settings=settings, cwd=str(ws.root))
        try:
            await server.initialize(ws.root, settings)
            idle = rss_kb(server.pid)["VmRSS"]
            open_s = await open_all(server, docs, timeout=1800)
            opened = rss_kb(server.pid)
            target = files // 2
            uri, text = docs[target]
            samples: list[tuple[int, int]] = [(0, opened["VmRSS"])]
            sample_every = max(1, min(sample_every, edits // 40))

            def on_edit(n: int) -> None:
                if n % sample_every == 0:
                    samples.append((n, rss_kb(server.pid)["VmRSS"]))

            series = await common.edit_series(
                server,
                uri,
                text,
                generated[target].middle_site(),
                edits,
                version=1,
                budget_s=budget,
                on_edit=on_edit,
                min_edits=min(edits, 2 * sample_every),
            )
            final = rss_kb(server.pid)
        finally:
            await server.close()
        done = len(series.latencies)
        if not samples or samples[-1][0] != done:
            samples.append((done, final["VmRSS"]))
        growth_kb = final["VmRSS"] - opened["VmRSS"]
        steady = [s for s in samples if s[0] >= done // 10]
        slope = slope_per_1000(steady) if done >= MIN_EDITS_FOR_SLOPE else None
        peer_results = {}
        unavailable = "not requested"
        if peers:
            tools, unavailable = common.peer_tools(install=False)
            for name in ("pylsp", "jedi-language-server"):
                peer_results[name] = (
                    await peer_rss([tools[name]], ws, docs) if tools.get(name) else {"unavailable": unavailable}
                )
    open_mb = mb(opened["VmRSS"])
    out = {
        "files": files,
        "lines_per_file": lines,
        "idle_mb": mb(idle),
        "open_mb": open_mb,
        "open_peak_mb": mb(opened["VmHWM"]),
        "per_file_kb": round((opened["VmRSS"] - idle) / files, 1),
        "open_all_s": round(open_s, 2),
        "edits_requested": edits,
        "edits_done": done,
        "edits_truncated_by_budget": series.truncated,
        "edit_latency": common.stats_ms(series.latencies),
        "after_edits_mb": mb(final["VmRSS"]),
        "after_edits_peak_mb": mb(final["VmHWM"]),
        "growth_mb": round(growth_kb / 1024, 2),
        "growth_per_1000_edits_mb": None if slope is None else round(slope / 1024, 3),
        "growth_projected_to_10000_edits_mb": None if slope is None else round(max(slope, 0) * 10 / 1024, 2),
        "samples": [{"edits": n, "rss_mb": mb(kb)} for n, kb in samples],
        "ratio_open_to_goal": ratio(open_mb, GOAL_OPEN_MB),
        "ratio_open_to_idle": ratio(open_mb, mb(idle)),
        "goal_open_under_150mb": open_mb < GOAL_OPEN_MB,
        "goal_growth_under_10mb": growth_kb / 1024 < GOAL_GROWTH_MB if done >= edits else None,
        "peers": peer_results,
        "peers_unavailable": unavailable,
    }
    if done < edits:
        projected = out["growth_projected_to_10000_edits_mb"]
        out["goal_growth_under_10mb_projected"] = None if projected is None else projected < GOAL_GROWTH_MB
    if series.error:
        out["error_during_edits"] = series.error
    for name, r in peer_results.items():
        if "open_mb" in r:
            out[f"ratio_open_to_{name}"] = ratio(open_mb, r["open_mb"])
    return out


def summarize(r: dict) -> str:
    rows = [
        f"Memory: {r['files']} files of {r['lines_per_file']} lines open",
        f"  RSS idle {r['idle_mb']} MB -> with the files {r['open_mb']} MB (peak {r['open_peak_mb']} MB,"
        f" {r['per_file_kb']} kB per file, opened in {r['open_all_s']} s); goal < {GOAL_OPEN_MB:g} MB met: {r['goal_open_under_150mb']}",
    ]
    for name, p in r["peers"].items():
        if "open_mb" in p:
            rows.append(
                f"  {name}: idle {p['idle_mb']} MB -> {p['open_mb']} MB with the same files"
                f" (ours {r.get(f'ratio_open_to_{name}')}x)"
            )
        else:
            rows.append(f"  {name}: {p.get('unavailable') or p.get('error')}")
    rows.append(
        f"  {r['edits_done']} of {r['edits_requested']} edits"
        + (" (time budget)" if r["edits_truncated_by_budget"] else "")
        + f", p50 {common.fmt_ms(r['edit_latency'].get('p50_ms'))}: RSS {r['after_edits_mb']} MB, growth {r['growth_mb']} MB;"
        f" slope {r['growth_per_1000_edits_mb']} MB per 1,000 edits (-> {r['growth_projected_to_10000_edits_mb']} MB at 10,000)"
    )
    met = r["goal_growth_under_10mb"]
    if met is None and "goal_growth_under_10mb_projected" in r:
        rows.append(
            f"  growth goal < {GOAL_GROWTH_MB:g} MB over 10,000 edits: projected {r['goal_growth_under_10mb_projected']}"
        )
    else:
        rows.append(f"  growth goal < {GOAL_GROWTH_MB:g} MB: {met}")
    if r.get("error_during_edits"):
        rows.append(f"  error: {r['error_during_edits']}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--files", type=int)
    p.add_argument("--lines", type=int)
    p.add_argument("--edits", type=int)
    p.add_argument("--budget", type=float, help="seconds for the edit phase (default 300)")
    p.add_argument("--no-peers", action="store_true")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    peers = not (args.no_peers or args.quick)
    return common.run("memory", lambda: measure(peers=peers, **cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
