"""The full reliability runs of issue 9, one after the other (they share the machine's 2 cores
badly): fuzzing (100,000 cases), soak (20,000 operations), job faults (3 rounds).

    .venv/bin/python bench/reliability/run_all.py [--quick] [--json]

`--quick` runs a tenth of each (a few minutes). Writes each run's JSON to
`artifacts/reliability/` and prints them together; exit status 1 when any goal is missed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "reliability"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = {
        "fuzz": ["fuzz.py", "--cases", "10000" if args.quick else "100000"],
        "soak": ["soak.py", "--operations", "2000" if args.quick else "20000"],
        "job_faults": ["job_faults.py", "--repeat", "1" if args.quick else "3"],
    }
    OUT.mkdir(parents=True, exist_ok=True)
    report, failed = {}, False
    for name, argv in runs.items():
        print(f"== {name}: {' '.join(argv)}", file=sys.stderr, flush=True)
        done = subprocess.run(
            [sys.executable, str(Path(__file__).parent / argv[0]), *argv[1:], "--json"],
            stdout=subprocess.PIPE,
            text=True,
        )
        failed |= done.returncode != 0
        try:
            report[name] = json.loads(done.stdout)
        except ValueError:
            report[name] = {"error": f"exit status {done.returncode}", "output": done.stdout[-2000:]}
        (OUT / f"{name}.json").write_text(json.dumps(report[name], indent=2))
    print(
        json.dumps(report, indent=2)
        if args.json
        else json.dumps(
            {
                k: {
                    kk: vv
                    for kk, vv in v.items()
                    if not isinstance(vv, (list, dict)) or kk in ("failures", "latency_requests")
                }
                for k, v in report.items()
            },
            indent=2,
        )
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
