"""`--format json` and SARIF as strict JSON readers (jq, a SARIF viewer, JavaScript) read them:
no bare NaN or Infinity, whatever a design computes. A real subprocess, as in test_cli.py."""

import json
import subprocess
import sys

from allo_lsp.finite_json import dumps
from designs import NAN_DESIGN


def strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_run_json_of_nan_outputs_is_strict_json(tmp_path):
    """The reference executor computes 0.0/0.0: min, max and mean were printed as bare NaN."""
    path = tmp_path / "nan_design.py"
    path.write_text(NAN_DESIGN)
    done = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "run", f"{path}::top", "--backend", "reference", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (output,) = strict(done.stdout)["outputs"]
    assert (output["min"], output["max"], output["mean"]) == ("NaN", "NaN", "NaN")


def test_non_finite_numbers_are_named_at_any_depth():
    value = {"a": [float("nan"), {"b": (float("inf"), -float("inf"))}], "c": 1.5, float("inf"): 2}
    assert strict(dumps(value)) == {"a": ["NaN", {"b": ["Infinity", "-Infinity"]}], "c": 1.5, "Infinity": 2}
    assert dumps({"x": 1}, indent=2) == json.dumps({"x": 1}, indent=2)  # finite data: as json writes it
