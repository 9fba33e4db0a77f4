"""The incremental path (a document's parse and extraction cache) gives exactly what a full
analysis of the same text gives, edit after edit, broken syntax included."""

import random

import pytest

from allo_lsp.analysis import ParseCache, analyze
from allo_lsp.check import region_json
from paths import EXAMPLES


def observable(analysis):
    model = analysis.model
    return (
        [(p.code, p.severity, p.range, p.message) for p in analysis.problems],
        [region_json(r) for r in model.regions],
        [(b.region.name, b.range, b.target) for b in model.builds],
        [(c.module, c.region.name, c.range, [a.text for a in c.args]) for c in model.calls],
        [(f.name, f.range) for f in model.functions],
    )


def edits(text: str, rng: random.Random):
    """Typing-like edits: characters in and out, lines duplicated, deleted, broken and fixed."""
    for _ in range(60):
        lines = text.split("\n")
        n = rng.randrange(len(lines))
        kind = rng.randrange(6)
        if kind == 0:
            col = rng.randrange(len(lines[n]) + 1)
            lines[n] = lines[n][:col] + rng.choice(["x", " ", "(", ":", "1", "_"]) + lines[n][col:]
        elif kind == 1 and lines[n]:
            col = rng.randrange(len(lines[n]))
            lines[n] = lines[n][:col] + lines[n][col + 1 :]
        elif kind == 2:
            lines.insert(n, lines[rng.randrange(len(lines))])
        elif kind == 3 and len(lines) > 1:
            del lines[n]
        elif kind == 4:
            lines.insert(n, "")
        else:
            lines[n] = lines[n].replace("16", "8", 1).replace("int32", "int16", 1)
        text = "\n".join(lines)
        yield text


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_incremental_equals_full(example):
    rng = random.Random(example)
    text = (EXAMPLES / example).read_text()
    cache = ParseCache()
    analyze(text, cache=cache)
    for step, edited in enumerate(edits(text, rng)):
        assert observable(analyze(edited, cache=cache)) == observable(analyze(edited)), f"edit {step}"
