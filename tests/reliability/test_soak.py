"""Soak, CI share: ~1,000 random operations on the real server over stdio (`soak.py` says which
and what must hold). The full run is `bench/reliability/soak.py` (20,000 operations), which also
holds the latency goal (p99 under 50 ms) on a quiet machine; here the bound only catches a
server that stalls, since CI machines are shared.
"""

import soak

OPERATIONS = 1000
P99_BOUND_MS = 1000.0  # a stall, not a slow machine: 518 ms was seen with both cores busy elsewhere
# 24 MiB since each analysis keeps its kernels' Allo types (issue 27): 20.5 MiB seen, flat from operation 600 on.
RSS_GROWTH_BOUND_KIB = 24 * 1024


async def test_a_thousand_random_operations():
    report = await soak.Soak(OPERATIONS, seed=20261130, warmup=200).run()
    assert report.server_alive
    assert report.problems == [], "\n".join(report.problems[:20])
    assert report.operations == OPERATIONS and report.compared >= 10
    assert report.request_latencies()["p99_ms"] < P99_BOUND_MS, report.latencies()
    assert report.rss_growth_kib < RSS_GROWTH_BOUND_KIB, (report.rss_start_kib, report.rss_end_kib)
