"""Fuzzing the analysis, full run: 100,000 mutated programs through `analyze` and the editor features.

    .venv/bin/python bench/reliability/fuzz.py [--cases 100000] [--workers 2] [--seed 0] [--json]

What a case is and what is checked: `tests/reliability/fuzzing.py` (the CI test runs 200 of the
same cases). Each worker process runs hypothesis with its own seed, generation only (no
shrinking: a failure is recorded and the run goes on); at the end each distinct failure is
minimised by deleting lines while it persists. Failing programs are written to
`artifacts/reliability/fuzz/` (one `.py` per failure, with its mutations in a comment).

Prints the figures (cases, failures by kind, analysis time percentiles fresh and after an edit,
by file size, and the slowest cases' mutations); `--json` prints them as one JSON object.
Exit status 1 when anything raised or pointed outside the text.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import fuzzing  # noqa: E402

OUT = ROOT / "artifacts" / "reliability" / "fuzz"
KEEP_PER_SIGNATURE = 3


CHUNK = 2000  # cases per hypothesis run: its engine slows down as one run grows


def _worker(args: tuple[int, int, int]) -> dict:
    from hypothesis import HealthCheck, Phase, given, seed, settings

    index, cases, base_seed = args
    rows: list[tuple] = []  # (base, lines, seconds, cached_seconds, kinds of mutations)
    failures: dict[str, dict] = {}
    slowest: list[tuple[float, str]] = []
    started = time.monotonic()
    # The case being checked, on disk: if the worker dies (a native crash), this is the culprit.
    current = OUT / f"worker-{index}-current.txt"
    partial = OUT / f"worker-{index}.json"  # what this worker found so far (`--aggregate` reads it)

    def check(case) -> None:
        current.write_text(
            case.describe() + "\n" + (case.text if len(case.text) < 100_000 else ""),
            encoding="utf-8",
            errors="surrogatepass",
        )
        # Fewer positions in the 2,000-line file: each quick fix there parses it whole again.
        positions = 4 if case.text.count("\n") < 500 else 1
        outcome = fuzzing.check_case(case.text, fuzzing.CORPUS[case.base], seed=len(rows), positions=positions)
        kinds = sorted({op[0] for op in case.ops})
        rows.append((case.base, outcome.lines, outcome.seconds, outcome.cached_seconds, kinds))
        slowest.append(
            (outcome.cached_seconds if outcome.cached_seconds is not None else outcome.seconds, case.describe())
        )
        if len(slowest) > 200:
            slowest.sort(reverse=True)
            del slowest[20:]
        for f in outcome.failures:
            entry = failures.setdefault(f.signature(), {"kind": f.kind, "where": f.where, "count": 0, "examples": []})
            entry["count"] += 1
            if len(entry["examples"]) < KEEP_PER_SIGNATURE:
                entry["examples"].append(
                    {"case": case.describe(), "detail": f.detail[-3000:], "text": case.text, "base": case.base}
                )

    for chunk, start in enumerate(range(0, cases, CHUNK)):

        @seed(base_seed * 1_000_000 + index * 1000 + chunk)
        @settings(
            max_examples=min(CHUNK, cases - start),
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(fuzzing.cases())
        def run(case):
            check(case)

        run()
        slowest.sort(reverse=True)
        del slowest[20:]
        part = {"rows": rows, "failures": failures, "slowest": slowest}
        partial.write_text(json.dumps(part, ensure_ascii=True), encoding="utf-8")
        rate = len(rows) / (time.monotonic() - started)
        print(f"  worker {index}: {len(rows)} cases ({rate:.1f}/s)", file=sys.stderr, flush=True)
    current.unlink(missing_ok=True)
    return {"rows": rows, "failures": failures, "slowest": slowest}


def minimise(text: str, base: str, signature: str, budget: int = 150) -> str:
    """Delete lines (halves, then quarters, ... then single lines) while the failure persists."""

    def fails(candidate: str) -> bool:
        outcome = fuzzing.check_case(candidate, base, positions=4)
        return any(f.signature() == signature for f in outcome.failures)

    lines = text.split("\n")
    size = max(len(lines) // 2, 1)
    while size >= 1 and budget > 0:
        i = 0
        while i < len(lines) and budget > 0:
            candidate = lines[:i] + lines[i + size :]
            budget -= 1
            if candidate and fails("\n".join(candidate)):
                lines = candidate
            else:
                i += size
        size //= 2
    return "\n".join(lines)


def percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    values = sorted(values)
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [values[0]] * 99
    return {
        "n": len(values),
        "p50_ms": round(q[49] * 1000, 1),
        "p95_ms": round(q[94] * 1000, 1),
        "p99_ms": round(q[98] * 1000, 1),
        "max_ms": round(values[-1] * 1000, 1),
        "over_100ms": sum(v > fuzzing.TIME_LIMIT_S for v in values),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--aggregate",
        action="store_true",
        help="report what the workers of an interrupted run wrote, without running anything",
    )
    args = parser.parse_args()

    started = time.monotonic()
    if args.aggregate:
        parts = [json.loads(p.read_text()) for p in sorted(OUT.glob("worker-*.json"))]
        parts = [{**p, "slowest": [tuple(x) for x in p["slowest"]]} for p in parts]
        args.workers = len(parts)
    else:
        OUT.mkdir(parents=True, exist_ok=True)
        for old in OUT.glob("*"):
            old.unlink()
        per_worker = [args.cases // args.workers + (i < args.cases % args.workers) for i in range(args.workers)]
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
            try:
                parts = list(pool.map(_worker, [(i, n, args.seed) for i, n in enumerate(per_worker)]))
            except concurrent.futures.process.BrokenProcessPool:
                crashed = [p.read_text(errors="replace")[:2000] for p in OUT.glob("worker-*-current.txt")]
                print(
                    "a worker died (a native crash in the analysis?) while checking:\n" + "\n".join(crashed),
                    file=sys.stderr,
                )
                return 2
    elapsed = time.monotonic() - started

    rows = [r for p in parts for r in p["rows"]]
    failures: dict[str, dict] = {}
    for p in parts:
        for sig, entry in p["failures"].items():
            merged = failures.setdefault(sig, {**entry, "count": 0, "examples": []})
            merged["count"] += entry["count"]
            merged["examples"] = (merged["examples"] + entry["examples"])[:KEEP_PER_SIGNATURE]
    for n, (sig, entry) in enumerate(sorted(failures.items(), key=lambda kv: -kv[1]["count"])):
        example = entry["examples"][0]
        if entry["kind"] in ("exception", "range", "cache"):  # not the known and the slow ones
            example["minimised"] = minimise(example["text"], fuzzing.CORPUS[example["base"]], sig)
        path = OUT / f"{n:03d}-{entry['kind'].split()[0]}.py"
        body = example.get("minimised", example["text"])
        path.write_text(
            f"# {sig}\n# {example['case']}\n# {example['detail'].splitlines()[0]}\n{body}",
            encoding="utf-8",
            errors="surrogatepass",
        )
        entry["file"] = str(path.relative_to(ROOT))
        for e in entry["examples"]:
            e.pop("text", None)
            e.pop("minimised", None)

    small = [r for r in rows if r[1] <= 100]
    large = [r for r in rows if 100 < r[1] <= fuzzing.MAX_LINES]
    slow_kinds = collections.Counter(
        k for r in rows if (r[3] if r[3] is not None else r[2]) > fuzzing.TIME_LIMIT_S for k in r[4]
    )
    report = {
        "cases": len(rows),
        "workers": args.workers,
        "seconds": None if args.aggregate else round(elapsed, 1),
        "cases_per_second": None if args.aggregate else round(len(rows) / elapsed, 1),
        "failures": {
            k: sum(e["count"] for e in failures.values() if e["kind"] == k)
            for k in ("exception", "range", "cache", "slow")
        },
        "distinct_failures": [
            {"signature": sig, **{k: v for k, v in e.items() if k != "examples"}, "example": e["examples"][0]["case"]}
            for sig, e in sorted(failures.items(), key=lambda kv: -kv[1]["count"])
        ],
        "analysis_fresh": {
            "all": percentiles([r[2] for r in rows]),
            "up_to_100_lines": percentiles([r[2] for r in small]),
            "101_to_2000_lines": percentiles([r[2] for r in large]),
        },
        "analysis_after_edit": {
            "all": percentiles([r[3] for r in rows if r[3] is not None]),
            "up_to_100_lines": percentiles([r[3] for r in small if r[3] is not None]),
            "101_to_2000_lines": percentiles([r[3] for r in large if r[3] is not None]),
        },
        "mutations_in_cases_over_100ms": dict(slow_kinds.most_common()),
        "slowest": [
            {"ms": round(s * 1000), "case": d[:300]}
            for s, d in sorted((x for p in parts for x in p["slowest"]), reverse=True)[:10]
        ],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['cases']} cases in {report['seconds']} s ({report['cases_per_second']}/s, {args.workers} workers)"
        )
        print(f"failures: {report['failures']}")
        for f in report["distinct_failures"]:
            print(
                f"  {f['count']:6d}  {f['signature']}\n          e.g. {f['example'][:200]}\n          {f.get('file', '')}"
            )
        for label in ("analysis_fresh", "analysis_after_edit"):
            for bucket, figures in report[label].items():
                print(f"{label:20s} {bucket:18s} {figures}")
        print(f"mutations in the cases over 100 ms: {report['mutations_in_cases_over_100ms']}")
    bad = report["failures"]["exception"] + report["failures"]["range"] + report["failures"]["cache"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
