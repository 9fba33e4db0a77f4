"""An edit inside a kernel parses only the statement it is in (`analysis/splice.py`): the chunk
it gives has the tree and the positions that a parse of the whole chunk gives, node for node."""

import ast
import dataclasses
import random
import sys

import libcst as cst
import pytest
from allo_lsp.analysis import ParseCache, analyze
from allo_lsp.analysis.chunks import parse_chunks, positions
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from generate import generate


def in_order(module: cst.Module, table: dict) -> list:
    """(node kind, position) of every node, in one traversal order: two equal trees pair up."""
    out, stack = [], [module]
    while stack:
        node = stack.pop()
        out.append((type(node).__name__, table.get(node)))
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack += [v for v in value if isinstance(v, cst.CSTNode)]
    return out


def assert_as_parsed_whole(cache: ParseCache, before: set[int] = frozenset()) -> None:
    """Every chunk parsed since `before` (the ids of the modules then) as a whole parse gives it."""
    for chunk in cache.chunks:
        if chunk.module is None or chunk.errors or chunk.repaired or chunk.split or id(chunk.module) in before:
            continue
        whole = cst.parse_module(chunk.source)
        assert chunk.module.deep_equals(whole), chunk.source
        assert in_order(chunk.module, chunk.positions) == in_order(whole, positions(whole)), chunk.source
        assert len(chunk.positions) == len(positions(whole)), "positions of nodes no longer in the tree"


def kernel_edits(text: str, sites: list[tuple[int, int]], rng: random.Random):
    """Edits inside kernels, valid and not: digits, characters that break the line, lines added
    (a statement, a block, a comment, an empty line) and removed, a line indented or dedented."""
    for _ in range(80):
        lines = text.split("\n")
        line, column = rng.choice(sites)
        line = min(line, len(lines) - 1)
        here = lines[line]
        indent = here[: len(here) - len(here.lstrip())]
        column = min(column, len(here))
        kind = rng.randrange(8)
        if kind == 0:
            lines[line] = here[:column] + rng.choice("1234567") + here[column:]
        elif kind == 1:
            lines[line] = here[:column] + rng.choice(["(", ":", " x", ")", "#", '"']) + here[column:]
        elif kind == 2:
            lines.insert(line + 1, indent + rng.choice(["x = 1", "pass", "# note", "for j in range(2):"]))
        elif kind == 3:
            lines.insert(line + 1, rng.choice(["", indent, indent + "    y = 2"]))
        elif kind == 4 and lines[line + 1].strip():
            del lines[line + 1]
        elif kind == 5:
            lines[line] = "    " + here
        elif kind == 6:
            lines[line] = here[4:] if here.startswith("    ") else here
        else:
            lines[line - 1] = lines[line - 1] + "  # why"
        edited = "\n".join(lines)
        yield edited
        # A broken text is fixed by the next edit (typed, then undone): the edits go on from
        # valid text, where the splice applies, and each breaking edit is tried from there too.
        if _valid(edited):
            text = edited


def _valid(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_edit_in_a_kernel_gives_the_chunk_a_whole_parse_gives(seed):
    rng = random.Random(seed)
    generated = generate(600, seed=seed)
    text = generated.text
    cache = ParseCache()
    parse_chunks(text, cache)
    spliced = 0
    for edited in kernel_edits(text, generated.edit_sites, rng):
        before = {id(c.module): c for c in cache.chunks}
        parse_chunks(edited, cache)
        assert_as_parsed_whole(cache, set(before))
        # A spliced chunk is new but holds nodes of the one it replaced.
        old = {id(n) for c in before.values() if c.module is not None for n in _nodes(c.module)}
        spliced += any(
            id(c.module) not in before and any(id(n) in old for n in _nodes(c.module))
            for c in cache.chunks
            if c.module is not None
        )
    assert spliced >= 10, spliced  # the splice ran (and was checked), not only the whole parse


def test_a_digit_typed_in_a_kernel_parses_only_its_statement():
    """The kernels around the edit keep their nodes (the previous parse's objects): the chunk was
    not parsed again whole. And the analysis equals a full one."""
    generated = generate(500)
    line, column = generated.middle_site()
    lines = generated.text.split("\n")
    lines[line] = lines[line][:column] + "1" + lines[line][column:]
    edited = "\n".join(lines)
    cache = ParseCache()
    parse_chunks(generated.text, cache)
    before = next(c for c in cache.chunks if c.start <= line < c.end)
    parse_chunks(edited, cache)
    after = next(c for c in cache.chunks if c.start <= line < c.end)
    assert after.module is not before.module
    old_nodes = {id(n) for n in _nodes(before.module)}
    new_nodes = list(_nodes(after.module))
    kept = [n for n in new_nodes if id(n) in old_nodes]
    assert kept and len(kept) > len(new_nodes) // 2
    assert_as_parsed_whole(cache)
    cache2 = ParseCache()
    analyze(generated.text, cache=cache2)
    incremental = analyze(edited, cache=cache2)
    full = analyze(edited)
    assert incremental.problems == full.problems
    assert [r.name for r in incremental.model.regions] == [r.name for r in full.model.regions]


def _nodes(root: cst.CSTNode):
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack += [v for v in value if isinstance(v, cst.CSTNode)]
