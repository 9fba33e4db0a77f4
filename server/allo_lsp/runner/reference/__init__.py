"""The reference executor: Allo dataflow designs run directly on numpy, no compiler needed.

`simulate(region, arrays)` runs a region as `df.build(region, target="simulator")(*arrays)`
would. Runs in the runner process (stdlib + numpy). `shim/` is the `allo` package that user code
imports under this backend.
"""

from __future__ import annotations

from pathlib import Path

from allo_lsp.runner.reference.region import run_region
from allo_lsp.runner.reference.scheduler import Deadlock
from allo_lsp.runner.reference.transform import Unsupported

SHIM_PATH = str(Path(__file__).resolve().parent / "shim")

__all__ = ["SHIM_PATH", "Deadlock", "Unsupported", "simulate"]


def simulate(region, arrays: list) -> None:
    run_region(region, arrays)
