"""A typing burst: 50 keystrokes 30 ms apart in a kernel, default settings, over stdio.

    .venv/bin/python bench/burst.py [--json] [--quick] [--sizes 500,2000,10000] [--bursts 5] [--keys 50] [--gap-ms 30]

Each keystroke types one digit after an integer literal of the middle kernel's body (the text
stays valid: the literal grows), sent as `didChange` at its time in the burst (30 ms after the
one before, whatever the server does meanwhile). Measured per burst: the time from the last
keystroke to the `publishDiagnostics` of its version, as a ratio to `ast.parse` of that text
(timed in this process after the burst, while the server idles); which versions were published
(a publication older than one already seen would be a stale result); and how many analyses the
server ran at once, read from when each analysis started and ended
(bench/analysis_probe.py runs the server), not assumed. RSS before and after the bursts says
whether the burst left work or memory behind.
Goals (issue 18): the last keystroke's diagnostics within 1x `ast.parse`; one analysis at a time.
"""

from __future__ import annotations

import ast
import asyncio
import time

import analysis_probe
import common
from common import fmt_ms, fmt_x, goal, ratio
from generate import generate
from lsp_client import LspServer, rss_kb

FULL = {"sizes": (500, 2_000, 10_000), "bursts": 5, "keys": 50, "gap_ms": 30.0, "parses": 20}
QUICK = {"sizes": (300,), "bursts": 1, "keys": 5, "gap_ms": 30.0, "parses": 3}


def _parse_s(text: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ast.parse(text)
        out.append(time.perf_counter() - t0)
    return out


async def one_burst(server: LspServer, uri: str, site: tuple[int, int], version: int, keys: int, gap_s: float):
    """Type `keys` digits at `site`, one per `gap_s`; (last keystroke's latency, versions published
    from the first keystroke on, in order, the burst's start, the last keystroke's time)."""
    line, column = site
    after = server.sequence(uri)
    start = time.perf_counter()
    sent = start
    for k in range(keys):
        # The keystrokes' schedule, not a wait for an event: a typist does not wait for the server.
        delay = start + k * gap_s - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        sent = time.perf_counter()
        await server.change(uri, version + k + 1, line, column + k, column + k, "1")
    last = version + keys
    published = await server.wait_diagnostics(uri, last, after, timeout=120)
    versions = server.versions_published(uri, after)
    return published.time - sent, versions, start, sent


async def measure_size(lines: int, bursts: int, keys: int, gap_ms: float, parses: int) -> dict:
    generated = generate(lines)
    text, site = generated.text, generated.middle_site()
    with common.Workspace() as ws:
        _, uri = ws.write(f"generated_{lines}.py", text)
        events = ws.root / "analyses.events"
        server = await LspServer.start(common.probed_server(events), cwd=str(ws.root))
        latencies, parse_times, stale, windows = [], [], 0, []
        published_per_burst = []
        try:
            await server.initialize(ws.root)
            await server.open(uri, text)
            await server.wait_diagnostics(uri, 1, 0, timeout=300)
            rss_before = rss_kb(server.pid)
            version, current = 1, text
            offset = common.offset_of(text, *site)
            for b in range(bursts):
                # Each burst types at the end of what the one before typed.
                at = (site[0], site[1] + b * keys)
                latency, versions, started, last = await one_burst(server, uri, at, version, keys, gap_ms / 1000)
                version += keys
                current = current[: offset + b * keys] + "1" * keys + current[offset + b * keys :]
                latencies.append(latency)
                parse_times += _parse_s(current, parses)
                stale += sum(1 for a, b2 in zip(versions, versions[1:]) if b2 is not None and a is not None and b2 < a)
                published_per_burst.append(len(versions))
                windows.append((started, last + latency))
            rss_after = rss_kb(server.pid)
        finally:
            await server.close()
        recorded = analysis_probe.events(events)
    per_burst = [analysis_probe.at_once(recorded, a, b) for a, b in windows]
    parse = common.stats_ms(parse_times)
    last = common.stats_ms(latencies)
    observed = sum(p["analyses_started"] for p in per_burst)
    most = max((p["most_at_once"] for p in per_burst), default=0) if observed else None
    out = {
        "lines": lines,
        "bursts": bursts,
        "keystrokes_per_burst": keys,
        "gap_ms": gap_ms,
        "last_keystroke_to_diagnostics": last,
        "ast_parse": parse,
        "ratio_p50_to_ast_parse": ratio(last.get("p50_ms"), parse.get("p50_ms")),
        "ratio_max_to_ast_parse": ratio(last.get("max_ms"), parse.get("p50_ms")),
        "publications_per_burst": published_per_burst,
        "stale_publications": stale,
        # None: the probe saw no analysis (it did not take): nothing is claimed then.
        "analyses_per_burst": [p["analyses_started"] for p in per_burst] if observed else None,
        "most_analyses_at_once": most,
        "rss_kb_before": rss_before.get("VmRSS"),
        "rss_kb_after": rss_after.get("VmRSS"),
    }
    out["goal_last_le_1x_ast"] = None if out["ratio_p50_to_ast_parse"] is None else out["ratio_p50_to_ast_parse"] <= 1.0
    out["goal_one_at_a_time"] = None if most is None else most <= 1
    return out


async def measure(sizes, bursts: int, keys: int, gap_ms: float, parses: int) -> dict:
    results = [await measure_size(lines, bursts, keys, gap_ms, parses) for lines in sizes]
    return {
        "settings": "default (no alloDataflow settings sent)",
        "default_debounce_ms": common.our_debounce_ms(),
        "definition": "per burst: last didChange -> publishDiagnostics of its version, client side; ratio to the p50 "
        "of ast.parse of the burst's final text; analyses at once from the server's analysis start/end events",
        "sizes": results,
    }


def summarize(result: dict) -> str:
    rows = [
        f"Typing burst, default settings (debounceMs {result['default_debounce_ms']}): "
        "last keystroke -> its diagnostics"
    ]
    for s in result["sizes"]:
        last = s["last_keystroke_to_diagnostics"]
        rows.append(
            f"  {s['lines']:>6} lines, {s['bursts']} bursts of {s['keystrokes_per_burst']} keys {s['gap_ms']:g} ms apart:"
            f" p50 {fmt_ms(last.get('p50_ms'))}, max {fmt_ms(last.get('max_ms'))};"
            f" ast.parse p50 {fmt_ms(s['ast_parse'].get('p50_ms'))} -> {fmt_x(s['ratio_p50_to_ast_parse'])}"
            f" ({goal(s['goal_last_le_1x_ast'])}: <= 1x)"
        )
        rows.append(
            f"         analyses per burst {s['analyses_per_burst']}, at most {s['most_analyses_at_once']} at once"
            f" ({goal(s['goal_one_at_a_time'])}); publications per burst {s['publications_per_burst']},"
            f" stale {s['stale_publications']}; RSS {s['rss_kb_before']} -> {s['rss_kb_after']} kB"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = common.parser(__doc__)
    p.add_argument("--sizes", type=common.sizes, help="comma-separated line counts (default 500,2000,10000)")
    p.add_argument("--bursts", type=int, help="bursts per size (default 5)")
    p.add_argument("--keys", type=int, help="keystrokes per burst (default 50)")
    p.add_argument("--gap-ms", dest="gap_ms", type=float, help="time between keystrokes (default 30)")
    args = p.parse_args(argv)
    cfg = common.config(args, FULL, QUICK)
    return common.run("burst", lambda: measure(**cfg), summarize, args)


if __name__ == "__main__":
    raise SystemExit(main())
