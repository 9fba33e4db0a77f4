"""`allo-lsp check --omp-threads N`: the OpenMP threads the design will run with (ADF051)."""

import json
import subprocess
import sys

from paths import EXAMPLES

DESIGN = EXAMPLES / "producer_consumer.py"  # one region, 2 PEs


def codes(*options: str) -> list[tuple[str, str]]:
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", str(DESIGN), "--format", "json", *options],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode in (0, 1), out.stderr
    return [(d["code"], d["severity"]) for d in json.loads(out.stdout)["files"][0]["diagnostics"]]


def test_fewer_threads_than_pes_is_a_warning():
    assert codes("--omp-threads", "1") == [("ADF051", "warning")]


def test_enough_threads_or_none_set_is_clean():
    assert codes("--omp-threads", "2") == []
    assert codes() == []
