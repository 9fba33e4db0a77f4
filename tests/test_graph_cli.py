"""`allo-lsp graph FILE::REGION --format json|dot [--expand]` as a terminal runs it (a real
subprocess): the JSON the server answers `allo/regionGraph` with, and Graphviz dot whose every
edge joins declared nodes (and that `dot` lays out, where Graphviz is installed)."""

import json
import re
import shutil
import subprocess
import sys

import pytest
from paths import EXAMPLES

SYSTOLIC = EXAMPLES / "systolic_gemm.py"
HIERARCHICAL = EXAMPLES / "hierarchical.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "graph", *args], capture_output=True, text=True, timeout=60
    )


def test_json_collapsed_and_expanded():
    out = run(f"{SYSTOLIC}::top")
    assert out.returncode == 0, out.stderr
    graph = json.loads(out.stdout)
    assert [n["id"] for n in graph["nodes"] if n["kind"] == "kernel"] == ["gemm"]
    assert not [n for n in graph["nodes"] if n["kind"] == "pe"]
    out = run(f"{SYSTOLIC}::top", "--format", "json", "--expand")
    graph = json.loads(out.stdout)
    pes = [n for n in graph["nodes"] if n["kind"] == "pe"]
    assert len(pes) == 36 and pes[8]["name"] == "gemm_1_2" and pes[8]["pe"] == [1, 2]
    ids = {n["id"] for n in graph["nodes"]}
    streams = [e for e in graph["edges"] if e["kind"] == "stream"]
    assert streams and all(e["source"] in ids and e["target"] in ids for e in streams)
    edge = next(e for e in streams if e["id"] == "fifo_B[3, 2]:gemm_2_2->gemm_3_2")
    assert (edge["stream"], edge["index"], edge["depth"]) == ("fifo_B", [3, 2], 4)
    lines = SYSTOLIC.read_text().split("\n")
    start = edge["range"]["start"]  # an LSP range: 0-based line, characters
    assert lines[start["line"]][start["character"] :].startswith("fifo_B:")


def test_a_target_that_is_no_region_exits_2():
    for target in (f"{SYSTOLIC}::nothing", f"{SYSTOLIC}", f"{EXAMPLES}/missing.py::top"):
        out = run(target)
        assert out.returncode == 2 and out.stdout == "", target
        assert "allo-lsp graph:" in out.stderr


STATEMENT = re.compile(r'^\s*("(?:[^"\\]|\\.)*")(?:\s*->\s*("(?:[^"\\]|\\.)*"))?\s*\[(.*)\];$')


def dot_structure(text: str) -> tuple[set[str], list[tuple[str, str]], list[str]]:
    """Declared nodes, edges and clusters of our dot (one statement a line), checking that every
    line is one of the statements it writes and that the braces balance."""
    assert text.startswith('digraph "') and text.rstrip().endswith("}")
    nodes, edges, clusters, depth = set(), [], [], 0
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith("subgraph "):
            clusters.append(stripped.split('"')[1])
            depth += 1
        elif stripped == "}":
            depth -= 1
        elif (match := STATEMENT.match(line)) is not None:
            if match.group(2):
                edges.append((match.group(1), match.group(2)))
            else:
                nodes.add(match.group(1))
        else:
            assert re.match(r"^\s*(rankdir|node|edge|label)\b", line), line
    assert depth == -1  # the digraph's own closing brace
    return nodes, edges, clusters


def test_dot_edges_join_declared_nodes_and_groups_are_clusters():
    out = run(f"{HIERARCHICAL}::top", "--format", "dot", "--expand")
    assert out.returncode == 0, out.stderr
    nodes, edges, clusters = dot_structure(out.stdout)
    graph = json.loads(run(f"{HIERARCHICAL}::top", "--expand").stdout)
    assert len(edges) == len(graph["edges"])
    assert all(a in nodes and b in nodes for a, b in edges)
    groups = {n["parent"] for n in graph["nodes"] if n["parent"]}
    assert set(clusters) == {f"cluster_{g}" for g in groups}
    assert '"wrapper_0/inner/scale_0"' in nodes


def test_dot_of_a_stream_nobody_gets_ends_in_a_point():
    out = run(f"{EXAMPLES / 'pitfall_deadlock_stream.py'}::top", "--format", "dot")
    nodes, edges, _ = dot_structure(out.stdout)
    (stub,) = [n for n in nodes if n.endswith(':stub"')]
    assert ('"producer"', stub) in edges


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_lays_out_the_expanded_grid():
    out = run(f"{SYSTOLIC}::top", "--format", "dot", "--expand")
    svg = subprocess.run(["dot", "-Tsvg"], input=out.stdout, capture_output=True, text=True, timeout=120)
    assert svg.returncode == 0, svg.stderr
    titles = re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>', svg.stdout)
    assert sum(1 for t in titles if re.fullmatch(r"gemm_\d_\d", t)) == 36
