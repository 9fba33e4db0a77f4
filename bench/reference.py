"""Benchmark: the reference executor against the same element operations in plain Python.

    .venv/bin/python bench/reference.py [--json] [--repeat N] [--quick] [--only a,b]

Cases (issue 15's goals in brackets):
- `producer_consumer`: one put and one get per element over a depth-4 stream, 200,000 elements
  [<= 15x plain Python];
- `systolic_16x16`: examples/systolic_gemm.py with M, N, K = 16, 16, 256 (18x18 PEs, stream arrays,
  meta_if chains) [<= 30x];
- `systolic_32x32`: the same with 32, 32, 512 (1,156 PEs) [under 10 s];
- `memory`: 1,024 PEs over 4,096 FIFOs, in a fresh interpreter, its peak RSS [< 200 MB].
For each, the executor's time (best of N, design already loaded) is set against a sequential Python
loop doing the same element operations (the adds and multiply-adds, with deque appends/pops
standing for the FIFO traffic), measured in the same run. To measure another checkout's executor
(the old threaded one), run this script with PYTHONPATH=<that checkout>/server.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "runner"))
sys.path.insert(0, str(ROOT / "tests"))

from reference_harness import MANY_PES, load, shim  # noqa: E402

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


def producer_consumer(tmp: Path, elements: int, repeat: int) -> dict:
    module, _ = load(tmp, PRODUCER_CONSUMER.format(n=elements))
    a = np.arange(elements, dtype=np.int32)
    b = np.zeros_like(a)
    mod = module.df.build(module.top, target="simulator")
    executor = best(lambda: mod(a, b), repeat)
    assert b.tolist() == plain_producer_consumer(a.tolist())
    plain = best(lambda: plain_producer_consumer(a.tolist()), max(repeat, 3))
    return {"elements": elements, "executor_s": executor, "plain_python_s": plain, "ratio": executor / plain}


def systolic(tmp: Path, m: int, n: int, k: int, repeat: int) -> dict:
    source = (ROOT / "examples" / "systolic_gemm.py").read_text()
    source = re.sub(r"^M, N, K = .*$", f"M, N, K = {m}, {n}, {k}", source, count=1, flags=re.M)
    gemm, _ = load(tmp, source)
    A = np.random.default_rng(0).integers(-8, 8, (m, k)).astype(np.int32)
    B = np.random.default_rng(1).integers(-8, 8, (k, n)).astype(np.int32)
    C = np.zeros((m, n), dtype=np.int32)
    mod = gemm.df.build(gemm.top, target="simulator")
    executor = best(lambda: mod(A, B, C), repeat)
    assert C.tolist() == plain_gemm(A.tolist(), B.tolist(), m, n, k)
    plain = best(lambda: plain_gemm(A.tolist(), B.tolist(), m, n, k), max(repeat, 3))
    return {
        "shape": [m, n, k],
        "pes": (m + 2) * (n + 2),
        "executor_s": executor,
        "plain_python_s": plain,
        "ratio": executor / plain,
    }


def many_pes_child(tmp: Path) -> dict:
    module, _ = load(tmp, MANY_PES)
    A = np.arange(32 * 32, dtype=np.int32).reshape(32, 32)
    B = np.zeros_like(A)
    mod = module.df.build(module.top, target="simulator")
    start = time.perf_counter()
    mod(A, B)
    elapsed = time.perf_counter() - start
    assert (B == np.roll(A, 1, axis=1) + 6).all()
    return {"pes": 1024, "fifos": 4096, "executor_s": elapsed, "peak_rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike ru_maxrss it does not include the RSS of the
    parent that forked this interpreter)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory(quick: bool) -> dict:
    """In a fresh interpreter, so the peak is this design's alone."""
    child = subprocess.run([sys.executable, __file__, "--child-memory"], capture_output=True, text=True, timeout=600)
    if child.returncode != 0:
        return {"error": child.stderr[-2000:]}
    result = json.loads(child.stdout)
    baseline = subprocess.run([sys.executable, __file__, "--child-baseline"], capture_output=True, text=True)
    result["baseline_rss_mb"] = float(baseline.stdout)
    return result


CASES = ("producer_consumer", "systolic_16x16", "systolic_32x32", "memory")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--only", default=",".join(CASES))
    parser.add_argument("--child-memory", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-baseline", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_baseline:  # the interpreter with numpy and the executor imported, nothing run
        with shim():
            print(peak_rss_mb())
        return 0
    if args.child_memory:
        with tempfile.TemporaryDirectory() as tmp, shim():
            print(json.dumps(many_pes_child(Path(tmp))))
        return 0
    only = set(args.only.split(","))
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp, shim():
        tmp_path = Path(tmp)
        if "producer_consumer" in only:
            results["producer_consumer"] = producer_consumer(tmp_path, 2_000 if args.quick else 200_000, args.repeat)
        if "systolic_16x16" in only:
            shape = (4, 4, 16) if args.quick else (16, 16, 256)
            results["systolic_16x16"] = systolic(tmp_path, *shape, args.repeat)
        if "systolic_32x32" in only:
            shape = (8, 8, 32) if args.quick else (32, 32, 512)
            results["systolic_32x32"] = systolic(tmp_path, *shape, 1)
    if "memory" in only:
        results["memory"] = memory(args.quick)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            if "ratio" in r:
                print(
                    f"{name}: executor {r['executor_s'] * 1e3:.1f} ms, plain Python {r['plain_python_s'] * 1e3:.2f} ms, "
                    f"ratio {r['ratio']:.1f}x"
                )
            else:
                print(f"{name}: {r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
