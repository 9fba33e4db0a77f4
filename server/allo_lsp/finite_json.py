"""JSON that every reader accepts: non-finite numbers become the strings "NaN", "Infinity" and
"-Infinity".

A design's outputs may hold NaN or infinities (0.0/0.0 in float32), and Python's `json` writes
them as the bare tokens `NaN`/`Infinity`, which are not JSON: VS Code's JSON-RPC rejects the whole
frame (the command that asked never settles), and `jq` or a SARIF viewer reject the file. Every
output path (the LSP wire, `check`, `run`, `synth`, `report`) writes through `dumps`.
"""

from __future__ import annotations

import json
import math

_NAMES = {math.inf: "Infinity", -math.inf: "-Infinity"}


def dumps(value, **kwargs) -> str:
    """`json.dumps`, with non-finite floats (at any depth, keys too) written as strings."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except ValueError:  # rare: only then pay for a second pass
        pass
    # `default` (pygls turns attrs objects into dicts through it) may build the values lazily:
    # encode once as Python would, read back, and replace what is not finite.
    plain = json.loads(json.dumps(value, default=kwargs.pop("default", None)))
    return json.dumps(finite(plain), allow_nan=False, **kwargs)


def finite(value):
    """`value` (plain JSON data) with non-finite floats replaced by their names."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _NAMES.get(value, "NaN")
    if isinstance(value, dict):
        return {finite(k) if isinstance(k, float) else k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value
