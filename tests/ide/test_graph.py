"""The region graph (ide/graph.py) on the examples and on small designs: kernels and PEs, the
meta_* role of each PE, stream edges per element, ports, sub-regions as groups."""

import json
from collections import Counter

from allo_lsp.analysis import analyze
from allo_lsp.ide.document import DocumentAnalysis
from allo_lsp.ide.graph import document_graph, region_graph
from allo_lsp.ide.graph_fold import fold, parse
from paths import ROOT

EXAMPLES = ROOT / "examples"


def graph_of(text: str, region: str | None = "top", expand: bool = False):
    return region_graph(analyze(text).model.regions, text, region, expand)


def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


def plain(graph) -> dict:
    """The JSON with ranges as (line, column) pairs."""
    return graph.to_json(lambda r: [r.start.line, r.start.column, r.end.line, r.end.column])


def stream_pairs(graph, stream: str) -> set[tuple[str | None, str | None]]:
    return {(e.source, e.target) for e in graph.edges if e.kind == "stream" and e.stream == stream}


# examples/systolic_gemm.py: M = N = 4, a (M + 2) x (N + 2) grid.
M = N = 4
P0, P1 = M + 2, N + 2


def pe(i: int, j: int) -> str:
    return f"gemm_{i}_{j}"


def test_the_systolic_grid_expanded_has_its_36_pes_and_one_edge_per_fifo_it_uses():
    graph = graph_of(example("systolic_gemm.py"), expand=True)
    pes = [n for n in graph.nodes if n.kind == "pe"]
    assert [n.name for n in pes] == [pe(i, j) for i in range(P0) for j in range(P1)]
    assert all(n.parent == "gemm" and n.kernel == "gemm" and n.pe_count == 36 for n in pes)
    assert [n.pe for n in pes] == [(i, j) for i in range(P0) for j in range(P1)]
    # fifo_A runs along each inner row from the loader in column 0 to the drainer in column N + 1,
    # fifo_B down each inner column from row 0 to row M + 1.
    assert stream_pairs(graph, "fifo_A") == {(pe(i, j), pe(i, j + 1)) for i in range(1, M + 1) for j in range(N + 1)}
    assert stream_pairs(graph, "fifo_B") == {(pe(i, j), pe(i + 1, j)) for j in range(1, N + 1) for i in range(M + 1)}
    by_id = {e.id: e for e in graph.edges}
    assert by_id["fifo_A[2, 3]:gemm_2_2->gemm_2_3"].index == (2, 3)
    assert by_id["fifo_B[1, 4]:gemm_0_4->gemm_1_4"].index == (1, 4)
    streams = [e for e in graph.edges if e.kind == "stream"]
    assert all(e.depth == 4 and e.type == "int32" and e.fifos == 1 for e in streams)
    # Every compute PE gets a and b from its left and upper neighbours and passes both on.
    ins, outs = Counter(e.target for e in streams), Counter(e.source for e in streams)
    for i in range(1, M + 1):
        for j in range(1, N + 1):
            assert ins[pe(i, j)] == 2 and outs[pe(i, j)] == 2
    assert len({e.id for e in graph.edges}) == len(graph.edges)


def test_each_pe_of_the_systolic_grid_has_the_meta_branch_it_keeps():
    text = example("systolic_gemm.py")
    graph = graph_of(text, expand=True)
    roles = {n.pe: n.role for n in graph.nodes if n.kind == "pe"}
    corners = {(0, 0), (0, N + 1), (M + 1, 0), (M + 1, N + 1)}
    assert {roles[c] for c in corners} == {"meta_if(i in {0, M + 1} and j in {0, N + 1})"}
    assert {roles[(i, 0)] for i in range(1, M + 1)} == {"meta_elif(j == 0)"}
    assert {roles[(0, j)] for j in range(1, N + 1)} == {"meta_elif(i == 0)"}
    assert {roles[(M + 1, j)] for j in range(1, N + 1)} == {"meta_elif(i == M + 1 and j > 0)"}
    assert {roles[(i, N + 1)] for i in range(1, M + 1)} == {"meta_elif(j == N + 1 and i > 0)"}
    assert {roles[(i, j)] for i in range(1, M + 1) for j in range(1, N + 1)} == {"meta_else()"}
    lines = text.split("\n")
    inner = next(n for n in graph.nodes if n.name == pe(2, 2))
    assert lines[inner.role_line].strip() == "with allo.meta_else():"


def test_each_pe_carries_the_extent_of_the_meta_branch_it_runs_from_its_with_to_its_bodys_end():
    text = example("systolic_gemm.py")
    lines = text.split("\n")
    graph = graph_of(text, expand=True)
    pes = {n.pe: n for n in graph.nodes if n.kind == "pe"}
    inner = pes[(2, 2)]
    [branch] = inner.branches
    assert (branch.start.line, branch.start.column) == (inner.role_line, lines[inner.role_line].index("with"))
    assert lines[branch.end.line].strip() == "local_C[i - 1, j - 1] = c"  # the kernel's last line
    assert branch.end.column == len(lines[branch.end.line])
    corner = pes[(0, 0)].branches[0]
    assert lines[corner.start.line].strip().startswith("with allo.meta_if(i in {0, M + 1}")
    assert lines[corner.end.line].strip() == "pass"
    # The 16 compute PEs share one branch, the loaders of column 0 another; no two chains overlap.
    assert {n.branches[0] for n in pes.values() if n.role == "meta_else()"} == {branch}
    assert len({n.branches[0] for n in pes.values()}) == 6
    assert all(n.branches is None for n in graph.nodes if n.kind != "pe")
    kernel = next(n for n in graph.nodes if n.id == "gemm")
    assert all(kernel.extent.start.line < n.branches[0].start.line <= kernel.extent.end.line for n in pes.values())


NESTED_BRANCHES = """\
import allo

@df.region()
def top(A: int32[4], B: int32[4]):
    @df.kernel(mapping=[2, 2], args=[A])
    def k(local_A: int32[4]):
        i, j = df.get_pid()
        with allo.meta_if(i == 0):
            local_A[0] = 1
            with allo.meta_if(j == 1):
                name: str = "é€😀"
        with allo.meta_else():
            local_A[1] = 2

    @df.kernel(mapping=[2], args=[B])
    def plain(local_B: int32[4]):
        p = df.get_pid()
        local_B[p] = p

    @df.kernel(mapping=[2], args=[B])
    def unknown(local_B: int32[4]):
        p = df.get_pid()
        with allo.meta_if(p == UNDEFINED):
            local_B[p] = p
"""


def test_nested_branches_are_listed_outermost_first_in_code_points_and_an_unknown_one_is_null():
    lines = NESTED_BRANCHES.split("\n")
    graph = graph_of(NESTED_BRANCHES, expand=True)
    branches = {n.name: n.branches for n in graph.nodes if n.kind == "pe"}
    outer, nested = branches["k_0_1"]
    assert [lines[outer.start.line].strip(), lines[nested.start.line].strip()] == [
        "with allo.meta_if(i == 0):",
        "with allo.meta_if(j == 1):",
    ]
    assert outer.start.line < nested.start.line <= nested.end.line <= outer.end.line
    # The string's characters are 2, 3 and 4 UTF-8 bytes: the column counts code points, as the model's.
    assert (nested.end.line, nested.end.column) == (outer.end.line, len(lines[outer.end.line]))
    assert branches["k_0_0"] == [outer]
    assert [lines[b.start.line].strip() for b in branches["k_1_0"]] == ["with allo.meta_else():"]
    assert branches["plain_0"] == branches["plain_1"] == []
    assert branches["unknown_0"] is branches["unknown_1"] is None
    data = plain(graph)
    by_id = {n["id"]: n for n in data["nodes"]}
    assert by_id["k_0_1"]["branches"] == [
        [b.start.line, b.start.column, b.end.line, b.end.column] for b in (outer, nested)
    ]
    assert by_id["plain_0"]["branches"] == [] and by_id["unknown_0"]["branches"] is None
    assert by_id["k"]["branches"] is None


def test_the_systolic_grid_collapsed_is_one_kernel_with_its_streams_aggregated():
    text = example("systolic_gemm.py")
    graph = graph_of(text)
    model = analyze(text).model.regions[0]
    assert [(n.id, n.kind) for n in graph.nodes] == [
        ("gemm", "kernel"),
        ("port:A", "port"),
        ("port:B", "port"),
        ("port:C", "port"),
    ]
    kernel = graph.nodes[0]
    assert (kernel.pe_count, kernel.mapping, kernel.role, kernel.range) == (36, (6, 6), None, model.kernels[0].range)
    streams = {e.stream: e for e in graph.edges if e.kind == "stream"}
    expanded = graph_of(text, expand=True)
    for name in ("fifo_A", "fifo_B"):
        assert (streams[name].source, streams[name].target, streams[name].index) == ("gemm", "gemm", None)
        assert streams[name].fifos == len(stream_pairs(expanded, name))
        assert streams[name].range == model.stream(name).range
    ports = {e.id: (e.source, e.target, e.direction) for e in graph.edges if e.kind == "port"}
    assert ports == {
        "port:A->gemm": ("port:A", "gemm", "in"),
        "port:B->gemm": ("port:B", "gemm", "in"),
        "port:C->gemm": ("gemm", "port:C", "out"),
    }
    assert [(p.name, p.bundle, p.direction, p.type) for p in graph.ports] == [
        ("A", "gmem0", "in", "int32[4, 4]"),
        ("B", "gmem1", "in", "int32[4, 4]"),
        ("C", "gmem2", "out", "int32[4, 4]"),
    ]


def test_a_region_called_from_a_kernel_is_a_nested_group():
    graph = graph_of(example("hierarchical.py"))
    parents = {n.id: (n.kind, n.parent) for n in graph.nodes}
    assert parents == {
        "wrapper": ("kernel", None),
        "port:A": ("port", None),
        "port:B": ("port", None),
        "wrapper/inner": ("region", "wrapper"),
        "wrapper/inner/scale": ("kernel", "wrapper/inner"),
        "wrapper/inner/offset": ("kernel", "wrapper/inner"),
        "wrapper/inner/port:X": ("port", "wrapper/inner"),
        "wrapper/inner/port:Y": ("port", "wrapper/inner"),
    }
    assert stream_pairs(graph, "doubled") == {("wrapper/inner/scale", "wrapper/inner/offset")}
    assert [n.name for n in graph.nodes if n.id.startswith("wrapper/inner/")] == ["scale", "offset", "X", "Y"]
    assert [p.name for p in graph.ports] == ["A", "B"]  # the top function's own


def test_expanded_a_sub_region_is_instantiated_under_each_pe_of_its_caller():
    graph = graph_of(example("hierarchical.py"), expand=True)
    parents = {n.id: n.parent for n in graph.nodes}
    assert parents["wrapper_0"] == "wrapper"
    assert parents["wrapper_0/inner"] == "wrapper_0"
    assert parents["wrapper_0/inner/scale_0"] == "wrapper_0/inner/scale"
    assert stream_pairs(graph, "doubled") == {("wrapper_0/inner/scale_0", "wrapper_0/inner/offset_0")}


def test_a_stream_nobody_gets_ends_nowhere():
    graph = graph_of(example("pitfall_deadlock_stream.py"))
    assert stream_pairs(graph, "tap") == {("producer", None)}
    assert stream_pairs(graph, "pipe") == {("producer", "consumer")}


RELAY = """\
@df.region()
def top(A: int32[8], B: int32[8]):
    lanes: Stream[int32, 2][4]

    @df.kernel(mapping=[1], args=[A])
    def spread(local_A: int32[8]):
        for k in range(4):
            lanes[k].put(local_A[k])

    @df.kernel(mapping=[4], args=[B])
    def gather(local_B: int32[8]):
        p = df.get_pid()
        local_B[p] = lanes[p].get()
"""


def test_a_use_whose_element_does_not_fold_joins_at_its_kernel():
    graph = graph_of(RELAY, expand=True)
    # `lanes[k]` in a loop names no one element: spread's edges start at its kernel and reach
    # every gather PE, whose gets fold to their own lanes.
    assert stream_pairs(graph, "lanes") == {("spread", f"gather_{p}") for p in range(4)}
    collapsed = graph_of(RELAY)
    assert stream_pairs(collapsed, "lanes") == {("spread", "gather")}


def test_a_one_dimensional_pid_places_each_pe_on_its_element():
    text = RELAY.replace(
        "        for k in range(4):\n            lanes[k].put(local_A[k])", "        lanes[0].put(local_A[0])"
    )
    graph = graph_of(text, expand=True)
    gathers = [f"gather_{p}" for p in range(4)]
    assert stream_pairs(graph, "lanes") == {("spread_0", "gather_0")} | {(None, g) for g in gathers[1:]}
    assert [n.pe for n in graph.nodes if n.kernel == "gather" and n.kind == "pe"] == [(0,), (1,), (2,), (3,)]


UNKNOWN_BRANCH = """\
import allo

@df.region()
def top(A: int32[8], B: int32[8]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping=[2], args=[A])
    def side(local_A: int32[8]):
        i = df.get_pid()
        with allo.meta_if(i == UNDEFINED):
            s[i].put(1)
        with allo.meta_else():
            s[0].put(2)

    @df.kernel(mapping=[1], args=[B])
    def sink(local_B: int32[8]):
        local_B[0] = s[0].get()
"""


def test_a_meta_branch_that_does_not_fold_leaves_the_role_unknown_and_the_uses_at_the_kernel():
    graph = graph_of(UNKNOWN_BRANCH, expand=True)
    assert [n.role for n in graph.nodes if n.kind == "pe" and n.kernel == "side"] == [None, None]
    assert stream_pairs(graph, "s") == {("side", "sink_0")}


def test_the_json_has_the_contracts_keys_and_is_plain_json():
    graph = graph_of(example("systolic_gemm.py"), expand=True)
    data = plain(graph)
    json.dumps(data)  # nothing but JSON values
    assert set(data) == {"region", "range", "expanded", "nodes", "edges", "ports", "overlay"}
    node = next(n for n in data["nodes"] if n["id"] == "gemm_1_2")
    assert set(node) == {
        "id", "name", "kind", "kernel", "pe", "peCount", "mapping", "role", "roleLine", "branches", "range", "extent",
        "parent", "overlay",
    }  # fmt: skip
    assert (node["name"], node["kind"], node["pe"], node["mapping"], node["overlay"]) == (
        "gemm_1_2",
        "pe",
        [1, 2],
        [6, 6],
        None,
    )
    edge = next(e for e in data["edges"] if e["kind"] == "stream")
    assert set(edge) == {
        "id", "kind", "source", "target", "stream", "index", "depth", "type", "fifos", "direction", "range", "overlay"
    }  # fmt: skip
    assert data["overlay"] == {"run": None, "synthesis": None}


def test_a_kernels_extent_is_its_whole_definition_shared_by_its_pes_and_a_sub_regions_its_def():
    text = example("systolic_gemm.py")
    lines = text.split("\n")
    graph = graph_of(text, expand=True)
    kernel = next(n for n in graph.nodes if n.id == "gemm")
    assert lines[kernel.extent.start.line].strip() == "@df.kernel(mapping=[P0, P1], args=[A, B, C])"
    assert lines[kernel.extent.end.line].strip() == "local_C[i - 1, j - 1] = c"  # the body's last line
    assert kernel.extent.start.line < kernel.range.start.line < kernel.extent.end.line
    assert {n.extent for n in graph.nodes if n.kind == "pe"} == {kernel.extent}
    assert all(n.extent is None for n in graph.nodes if n.kind == "port")
    nested = graph_of(example("hierarchical.py"), expand=False)
    inner = next(n for n in nested.nodes if n.kind == "region")
    source = example("hierarchical.py").split("\n")
    assert source[inner.extent.start.line] == "@df.region()"
    assert source[inner.extent.start.line + 1].startswith("def inner(")
    scale = next(n for n in nested.nodes if n.name == "scale")
    assert inner.extent.start.line < scale.extent.start.line <= scale.extent.end.line <= inner.extent.end.line


def test_no_region_of_that_name_is_no_graph_and_no_name_is_the_first():
    text = example("hierarchical.py")
    assert graph_of(text, "missing") is None
    assert graph_of(text, None).region == "inner"


def test_while_a_line_is_half_typed_the_graph_is_the_last_good_analysis_moved_to_the_text():
    good = example("systolic_gemm.py")
    previous = DocumentAnalysis.build(good, 1, analyze(good).options)
    broken = good.replace("import numpy as np\n", "import numpy as np\n\nx = (\n\n")  # three lines above the region
    result = DocumentAnalysis.build(broken, 2, analyze(good).options, previous)
    assert result.current.model.syntax_errors  # the text does not parse: the last good analysis answers
    graph = document_graph(result, broken, "top", True)
    before = graph_of(good, expand=True)
    moved = {n.id: n.range.start.line for n in graph.nodes}
    assert all(moved[n.id] == n.range.start.line + 3 for n in before.nodes)
    extents = {n.id: n.extent for n in graph.nodes}
    assert all(extents[n.id].end.line == n.extent.end.line + 3 for n in before.nodes if n.extent)
    assert [n.role for n in graph.nodes] == [n.role for n in before.nodes]
    branches = {n.id: n.branches for n in graph.nodes}
    assert all(
        [b.start.line for b in branches[n.id]] == [b.start.line + 3 for b in n.branches]
        for n in before.nodes
        if n.branches
    )
    assert stream_pairs(graph, "fifo_A") == stream_pairs(before, "fifo_A")
    lines = broken.split("\n")
    assert lines[next(n for n in graph.nodes if n.name == "gemm_1_1").role_line].strip() == "with allo.meta_else():"


def test_a_text_that_does_not_parse_still_has_its_kernels_and_streams_from_the_model():
    text = example("pitfall_deadlock_stream.py")
    regions = analyze(text).model.regions
    graph = region_graph(regions, text + "\ndef broken(:\n", "top", True)  # `ast` cannot fold it
    assert stream_pairs(graph, "pipe") == {("producer", "consumer")}
    pes = [n for n in graph.nodes if n.kind == "pe"]
    assert [(n.name, n.pe, n.role) for n in pes] == [("producer_0", (0,), None), ("consumer_0", (0,), None)]


def test_past_the_node_bound_a_kernel_stays_collapsed_and_every_edge_has_its_ends(monkeypatch):
    from allo_lsp.ide import graph as graph_module

    monkeypatch.setattr(graph_module, "MAX_NODES", 30)  # fewer than the grid's 36 PEs
    graph = graph_of(example("systolic_gemm.py"), expand=True)
    assert not [n for n in graph.nodes if n.kind == "pe"]
    ids = {n.id for n in graph.nodes}
    assert all(e.source in ids and e.target in ids for e in graph.edges)
    assert stream_pairs(graph, "fifo_A") == {("gemm", "gemm")}
    monkeypatch.setattr(graph_module, "MAX_NODES", 5)  # room for top's nodes, not for the sub-region's
    nested = graph_of(example("hierarchical.py"))
    assert [n.id for n in nested.nodes] == ["wrapper", "port:A", "port:B"]


def test_folding_understands_what_a_design_writes_and_nothing_else():
    env = {"M": 4, "i": 0, "j": 5}
    assert fold(parse("i in {0, M + 1} and j in {0, M + 1}").body[0].value, env) is True
    assert fold(parse("min(M, 3) * 2 - (j // 2) ** 2").body[0].value, env) == 2
    assert fold(parse("j if i else M").body[0].value, env) == 4
    unknown = [fold(parse(t).body[0].value, env) for t in ("open('x')", "2 ** 10 ** 10", "unknown + 1", "[1][0]")]
    assert all(repr(v) == "UNKNOWN" for v in unknown)
