"""The incremental path (a document's parse and extraction cache) gives exactly what a full
analysis of the same text gives, edit after edit, broken syntax included."""

import random

import pytest
from allo_lsp.analysis import ParseCache, analyze
from allo_lsp.check import region_json
from paths import EXAMPLES, ROOT


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
        kind = rng.randrange(9)
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
        elif kind == 5:
            lines[n] = lines[n].replace("16", "8", 1).replace("int32", "int16", 1)
        elif kind == 6:
            # What changes where statements start: an opened bracket or string, a decorator,
            # a backslash, a line moved to column 0 or indented.
            lines.insert(n, rng.choice(["x = (", '"""', "@df.region()", "y = 1 \\", "    pass", ")", "else:"]))
        elif kind == 7:
            lines[n] = lines[n].lstrip()
        else:
            lines[n] = "    " + lines[n]
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


def test_incremental_equals_full_on_a_generated_design():
    """Many small chunks (the benchmark's generator), so that edits land between them."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from generate import generate

    rng = random.Random(8)
    text = generate(600).text
    cache = ParseCache()
    analyze(text, cache=cache)
    for step, edited in enumerate(edits(text, rng)):
        assert observable(analyze(edited, cache=cache)) == observable(analyze(edited)), f"edit {step}"


@pytest.mark.parametrize("opener", ['s = """', "s = (", "@df.region()", "y = 1 + \\"])
def test_an_edit_that_leaves_something_open_past_the_edited_chunks(opener):
    """An opened string or bracket swallows the chunks after the edit (here up to the closing
    docstring quotes), a decorator claims the next `def`: they are not reused as they were."""
    text = (EXAMPLES / "producer_consumer.py").read_text()
    text += '\n\ndef later():\n    """Closes an opened string."""\n    return (1)\n'
    lines = text.split("\n")
    first_def = next(i for i, line in enumerate(lines) if line.startswith("def ") or line.startswith("@"))
    edited = "\n".join(lines[:first_def] + [opener] + lines[first_def:])
    cache = ParseCache()
    analyze(text, cache=cache)
    assert observable(analyze(edited, cache=cache)) == observable(analyze(edited))


def test_duplicated_statements_keep_their_own_trees():
    """Found by fuzzing: the file's head pasted again below it. The two copies of a region
    have the same text; each must keep its own positions, cached or not."""
    text = (EXAMPLES / "producer_consumer.py").read_text()
    doubled = text + "\n" + text
    cache = ParseCache()
    analyze(text, cache=cache)
    incremental = analyze(doubled, cache=cache)
    assert observable(incremental) == observable(analyze(doubled))
    regions = incremental.model.regions
    assert len(regions) == 2 and regions[0].range != regions[1].range
