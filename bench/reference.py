"""Benchmark: the reference executor against the same element operations in plain Python.

    .venv/bin/python bench/reference.py [--json] [--repeat N]

Two designs: a producer/consumer stream (one put and one get per element) and a systolic GEMM
(a 6x6 PE grid with stream arrays and meta_if chains, as examples/systolic_gemm.py). For each,
the executor's time (best of N, design already loaded) is set against a sequential Python loop
doing the same element operations (the adds and multiply-adds, with list appends/pops standing
for the FIFO traffic); the ratio says what concurrency, blocking FIFOs and typed stores cost.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "runner"))
sys.path.insert(0, str(ROOT / "tests"))

from reference_harness import load, shim  # noqa: E402

PRODUCER_CONSUMER = """
N = {n}

@df.region()
def top(A: int32[N], B: int32[N]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[N]):
        for i in range(N):
            pipe.put(local_A[i] + 1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[N]):
        for i in range(N):
            local_B[i] = pipe.get()
"""


def plain_producer_consumer(a: list[int]) -> list[int]:
    fifo: collections.deque = collections.deque()
    out = [0] * len(a)
    for i, x in enumerate(a):
        fifo.append(x + 1)
        out[i] = fifo.popleft()
    return out


def plain_gemm(a, b, m: int, n: int, k: int):
    """The systolic array's work, sequentially: every inner PE does K multiply-adds, and every
    value crosses one FIFO per PE it passes."""
    c = [[0] * n for _ in range(m)]
    fifo: collections.deque = collections.deque()
    for i in range(m):
        for j in range(n):
            acc = 0
            for kk in range(k):
                fifo.append(a[i][kk])
                fifo.append(b[kk][j])
                x, y = fifo.popleft(), fifo.popleft()
                acc += x * y
            c[i][j] = acc
    return c


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--elements", type=int, default=2000)
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp, shim():
        tmp_path = Path(tmp)
        module, _ = load(tmp_path, PRODUCER_CONSUMER.format(n=args.elements))
        a = np.arange(args.elements, dtype=np.int32)
        b = np.zeros_like(a)
        mod = module.df.build(module.top, target="simulator")
        executor = best(lambda: mod(a, b), args.repeat)
        assert b.tolist() == plain_producer_consumer(a.tolist())
        plain = best(lambda: plain_producer_consumer(a.tolist()), args.repeat)
        results["producer_consumer"] = {"elements": args.elements, "executor_s": executor, "plain_python_s": plain,
                                        "ratio": executor / plain}

        gemm, _ = load(tmp_path, (ROOT / "examples" / "systolic_gemm.py").read_text())
        m, n, k = gemm.M, gemm.N, gemm.K
        A = np.random.default_rng(0).integers(-8, 8, (m, k)).astype(np.int32)
        B = np.random.default_rng(1).integers(-8, 8, (k, n)).astype(np.int32)
        C = np.zeros((m, n), dtype=np.int32)
        mod = gemm.df.build(gemm.top, target="simulator")
        executor = best(lambda: mod(A, B, C), args.repeat)
        assert C.tolist() == plain_gemm(A.tolist(), B.tolist(), m, n, k)
        plain = best(lambda: plain_gemm(A.tolist(), B.tolist(), m, n, k), args.repeat)
        pes = (m + 2) * (n + 2)
        results["systolic_gemm"] = {"shape": [m, n, k], "pes": pes, "executor_s": executor,
                                    "plain_python_s": plain, "ratio": executor / plain}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            print(f"{name}: executor {r['executor_s'] * 1e3:.1f} ms, plain Python {r['plain_python_s'] * 1e3:.2f} ms, "
                  f"ratio {r['ratio']:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
