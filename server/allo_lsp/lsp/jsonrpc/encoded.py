"""Answers sent as JSON encoded once: the code lenses of a large file.

pygls turns every result into JSON through cattrs, field by field: for the ~1,000 lenses of a
10,000-line file that costs tens of milliseconds per request, though the answer only changes
with the analysis or a job. A result wrapped in `Encoded` was turned into JSON once, when it
was computed, and is written as it is (`protocol.Protocol`).
"""

from __future__ import annotations

from allo_lsp.finite_json import dumps


class Encoded:
    """A result already in JSON (ASCII, as `json.dumps` writes by default; no NaN tokens)."""

    def __init__(self, value) -> None:
        self.text = dumps(value)
