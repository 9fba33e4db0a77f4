"""The active-PE view (ide/active_pe.py): the meta branches one PE does not take, its `get_pid()`
values, the stream elements it names and the PE at each one's other end, folded as the graph
folds its PE nodes (graph_fold.py) and paired as Allo pairs meta chains (protocol/meta_chains.py)."""

from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Position
from allo_lsp.ide.active_pe import active_pe
from allo_lsp.ide.graph import region_graph
from allo_lsp.ide.hover import hover
from paths import EXAMPLES

SYSTOLIC = (EXAMPLES / "systolic_gemm.py").read_text()


def view(text: str, pe, kernel: str = "k", region: str = "top"):
    return active_pe(analyze(text).model.regions, text, region, kernel, pe)


def inactive_lines(text: str, found) -> list[str]:
    """The first line of each inactive range, and how many lines it spans."""
    lines = text.split("\n")
    return [f"{lines[r.start.line].strip()} +{r.end.line - r.start.line}" for r in found.inactive]


def hints(text: str, found) -> list[tuple[str, str]]:
    """Each hint with the source it follows on its line."""
    lines = text.split("\n")
    return [(lines[h.position.line][: h.position.column].strip(), h.label) for h in found.hints]


def streams(text: str, found) -> list[tuple[str, str | None, tuple[str, ...]]]:
    lines = text.split("\n")
    return [
        (lines[s.range.start.line][s.range.start.column : s.range.end.column], s.element, s.peers)
        for s in found.streams
    ]


def test_an_inner_pe_of_the_systolic_grid():
    found = view(SYSTOLIC, "gemm_1_2", kernel="gemm")
    assert (found.pe.name, found.pe.pid, found.pe.role) == ("gemm_1_2", (1, 2), "meta_else()")
    # Every branch of the chain but its meta_else is inactive, each whole (its `with` to its end).
    assert inactive_lines(SYSTOLIC, found) == [
        "with allo.meta_if(i in {0, M + 1} and j in {0, N + 1}): +1",
        "with allo.meta_elif(j == 0): +2",
        "with allo.meta_elif(i == 0): +2",
        "with allo.meta_elif(i == M + 1 and j > 0): +2",
        "with allo.meta_elif(j == N + 1 and i > 0): +2",
    ]
    assert hints(SYSTOLIC, found) == [
        ("i, j = df.get_pid()", "i = 1, j = 2"),
        ("a: int32 = fifo_A[i, j]", "= [1, 2]"),
        ("b: int32 = fifo_B[i, j]", "= [1, 2]"),
        ("fifo_A[i, j + 1]", "= [1, 3]"),
        ("fifo_B[i + 1, j]", "= [2, 2]"),
    ]
    assert streams(SYSTOLIC, found) == [
        ("fifo_A[i, j].get", "fifo_A[1, 2]", ("gemm_1_1",)),
        ("fifo_B[i, j].get", "fifo_B[1, 2]", ("gemm_0_2",)),
        ("fifo_A[i, j + 1].put", "fifo_A[1, 3]", ("gemm_1_3",)),
        ("fifo_B[i + 1, j].put", "fifo_B[2, 2]", ("gemm_2_2",)),
    ]


def test_a_loader_and_a_drainer_of_the_grid():
    loader = view(SYSTOLIC, [2, 0], kernel="gemm")  # a pid picks it too
    assert loader.pe.name == "gemm_2_0" and loader.pe.role == "meta_elif(j == 0)"
    assert streams(SYSTOLIC, loader) == [("fifo_A[i, j + 1].put", "fifo_A[2, 1]", ("gemm_2_1",))]
    assert "with allo.meta_else(): +8" in inactive_lines(SYSTOLIC, loader)
    drainer = view(SYSTOLIC, "gemm_5_3", kernel="gemm")
    assert streams(SYSTOLIC, drainer) == [("fifo_B[i, j].get", "fifo_B[5, 3]", ("gemm_4_3",))]
    corner = view(SYSTOLIC, "gemm_0_0", kernel="gemm")
    assert streams(SYSTOLIC, corner) == [] and len(corner.inactive) == 5


def test_the_peers_are_the_graphs_element_edges():
    """Every stream site of every PE names the PEs the expanded graph joins it to."""
    graph = region_graph(analyze(SYSTOLIC).model.regions, SYSTOLIC, "top", True)
    edges = {(e.stream, e.index, e.source, e.target) for e in graph.edges if e.kind == "stream"}
    checked = 0
    for pe in (n.name for n in graph.nodes if n.kind == "pe"):
        for site in view(SYSTOLIC, pe, kernel="gemm").streams:
            for peer in site.peers:
                ends = (pe, peer) if site.op == "put" else (peer, pe)
                assert (site.stream, site.index, *ends) in edges
                checked += 1
    # Each edge is seen from both ends, and the graph has one for each of the 2 * 4 * 5 FIFOs used.
    assert checked == 2 * sum(1 for e in edges if e[2] and e[3]) == 2 * 40


def test_the_pe_list_is_grouped_by_role():
    found = view(SYSTOLIC, None, kernel="gemm")
    assert found.pe is None and found.inactive == () and found.hints == ()
    roles = list(dict.fromkeys(p.role for p in found.pes))
    assert roles == [
        "meta_if(i in {0, M + 1} and j in {0, N + 1})",
        "meta_elif(i == 0)",
        "meta_elif(j == 0)",
        "meta_else()",
        "meta_elif(j == N + 1 and i > 0)",
        "meta_elif(i == M + 1 and j > 0)",
    ]
    assert [p.name for p in found.pes[:4]] == ["gemm_0_0", "gemm_0_5", "gemm_5_0", "gemm_5_5"]
    assert len(found.pes) == 36 and len({p.name for p in found.pes}) == 36
    # A name that is not one of the kernel's PEs picks none; an unknown kernel is no view at all.
    assert view(SYSTOLIC, "gemm_9_9", kernel="gemm").pe is None
    assert view(SYSTOLIC, "gemm_1_2", kernel="nope") is None


def design(body: str, prelude: str = "", mapping: str = "[2, 2]") -> str:
    """A kernel `k` of `mapping` with `body` (indented 8) after `i, j = df.get_pid()`, and a
    sink for its stream array `s[2]`."""
    return f"""\
import allo
{prelude}
@df.region()
def top(A: int32[4]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping={mapping}, args=[A])
    def k(local_A: int32[4]):
        i, j = df.get_pid()
{body}
    @df.kernel(mapping=[2], args=[A])
    def sink(local_A: int32[4]):
        p = df.get_pid()
        local_A[p] = s[p].get()
"""


NESTED = design("""\
        with allo.meta_if(i == 0):
            with allo.meta_if(j == 0):
                s[j].put(1)
            with allo.meta_else():
                local_A[0] = 2
        with allo.meta_else():
            with allo.meta_if(j == 1):
                s[i].put(3)
""")


def test_nested_chains():
    assert inactive_lines(NESTED, view(NESTED, "k_0_0")) == ["with allo.meta_else(): +1", "with allo.meta_else(): +2"]
    # Outside the taken branch nothing inner is listed: the outer branch covers it.
    found = view(NESTED, "k_1_0")
    assert inactive_lines(NESTED, found) == ["with allo.meta_if(i == 0): +4", "with allo.meta_if(j == 1): +1"]
    found = view(NESTED, "k_1_1")
    assert inactive_lines(NESTED, found) == ["with allo.meta_if(i == 0): +4"]
    assert streams(NESTED, found) == [("s[i].put", "s[1]", ("sink_1",))]
    assert hints(NESTED, found) == [("i, j = df.get_pid()", "i = 1, j = 1"), ("s[i]", "= [1]")]


SPLIT = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        local_A[1] = 2
        with allo.meta_if(j == 0):
            local_A[2] = 1
        with allo.meta_else():
            local_A[3] = 1
        s[0].put(j)
        with allo.meta_else():
            s[1].put(i)
""")


def test_a_split_chain_pairs_each_else_with_the_meta_if_still_open():
    # The first meta_else closes `j == 0`, the second (after an ordinary statement) `i == 0`.
    found = view(SPLIT, "k_1_0")
    assert inactive_lines(SPLIT, found) == ["with allo.meta_if(i == 0): +1", "with allo.meta_else(): +1"]
    assert streams(SPLIT, found) == [("s[0].put", "s[0]", ("sink_0",)), ("s[1].put", "s[1]", ("sink_1",))]
    found = view(SPLIT, "k_0_1")
    assert inactive_lines(SPLIT, found) == ["with allo.meta_if(j == 0): +1", "with allo.meta_else(): +1"]
    assert streams(SPLIT, found) == [("s[0].put", "s[0]", ("sink_0",))]
    assert hints(SPLIT, found) == [("i, j = df.get_pid()", "i = 0, j = 1")]  # literal subscripts: no hint


META_FOR = design("""\
        with allo.meta_for(2) as t:
            with allo.meta_if(i == 0):
                s[t].put(j)
            with allo.meta_elif(t == j):
                local_A[t] = 1
            with allo.meta_else():
                s[i + j - 1].put(0)
""")


def test_meta_for_branches_on_pids_fold_and_on_its_variable_do_not():
    found = view(META_FOR, "k_1_1")
    # `t == j` does not fold (t is the meta_for's variable): neither it nor its meta_else is
    # inactive, since some iteration may take each.
    assert inactive_lines(META_FOR, found) == ["with allo.meta_if(i == 0): +1"]
    assert streams(META_FOR, found) == [("s[i + j - 1].put", "s[1]", ("sink_1",))]
    found = view(META_FOR, "k_0_1")
    assert inactive_lines(META_FOR, found) == ["with allo.meta_elif(t == j): +1", "with allo.meta_else(): +1"]
    # The element `s[t]` names depends on the iteration: not known, no hint, no peer.
    assert streams(META_FOR, found) == [("s[t].put", None, ())]
    assert hints(META_FOR, found) == [("i, j = df.get_pid()", "i = 0, j = 1")]


ELSE_REPAIRED_BY_META_FOR = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        with allo.meta_if(j == 0):
            local_A[1] = 1
        with allo.meta_for(2) as t:
            with allo.meta_else():
                local_A[2] = 1
""")


def test_an_else_a_later_iteration_pairs_otherwise_is_never_inactive():
    # Iteration 0's meta_else closes `j == 0`, iteration 1's `i == 0`: k_1_0 skips the body in the
    # first and runs it in the second. The walk sees the first only: the branch stays active.
    found = view(ELSE_REPAIRED_BY_META_FOR, "k_1_0")
    assert inactive_lines(ELSE_REPAIRED_BY_META_FOR, found) == ["with allo.meta_if(i == 0): +1"]


def test_a_condition_that_does_not_fold_is_not_inactive():
    text = design(
        """\
        with allo.meta_if(i == UNKNOWN_NAME):
            s[i].put(1)
        with allo.meta_else():
            s[j].put(2)
""",
        prelude="from elsewhere import UNKNOWN_NAME",
    )
    found = view(text, "k_0_1")
    assert found.inactive == ()
    assert [s.element for s in found.streams] == ["s[0]", "s[1]"]


def test_a_one_dimensional_pid_and_a_plain_stream():
    text = """\
import allo

@df.region()
def top(A: int32[4]):
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[4], args=[A])
    def k(local_A: int32[4]):
        p = df.get_pid()
        with allo.meta_if(p == 3):
            pipe.put(local_A[p])

    @df.kernel(mapping=[1], args=[A])
    def sink(local_A: int32[4]):
        local_A[0] = pipe.get()
"""
    found = view(text, "k_3")
    assert hints(text, found) == [("p = df.get_pid()", "p = 3")]
    assert streams(text, found) == [("pipe.put", "pipe", ("sink_0",))]
    assert view(text, "k_2").inactive and view(text, "k_2").streams == ()
    found = view(text, "sink_0", kernel="sink")
    assert streams(text, found) == [("pipe.get", "pipe", ("k_3",))]


def test_a_use_whose_index_does_not_fold_is_an_end_of_every_element():
    found = view(META_FOR, "sink_0", kernel="sink")
    # k_0_*'s `s[t]` may name either element; k_1_*'s `s[i + j - 1]` folds, but sits in a meta_else
    # after `meta_elif(t == j)`, which does not: who puts s[0] is "some PE of k", as the graph joins it.
    assert streams(META_FOR, found) == [("s[p].get", "s[0]", ("k",))]
    graph = region_graph(analyze(META_FOR).model.regions, META_FOR, "top", True)
    assert {(e.source, e.target) for e in graph.edges if e.stream == "s"} == {("k", "sink_0"), ("k", "sink_1")}


HIERARCHICAL = (EXAMPLES / "hierarchical.py").read_text()


def test_a_region_called_from_a_kernel():
    outer = view(HIERARCHICAL, "wrapper_0", kernel="wrapper")
    assert (outer.pe.name, outer.inactive, outer.streams) == ("wrapper_0", (), ())
    inner = view(HIERARCHICAL, "scale_0", kernel="scale", region="inner")
    assert streams(HIERARCHICAL, inner) == [("doubled.put", "doubled", ("offset_0",))]


def test_a_region_defined_in_a_test_function():
    text = (EXAMPLES / "region_in_test.py").read_text()
    found = view(text, "writer_0", kernel="writer")
    assert streams(text, found) == [("sums.get", "sums", ("adder_0",))]


def test_the_hover_on_a_put_or_get_for_the_active_pe():
    analysis = analyze(SYSTOLIC)
    chosen = active_pe(analysis.model.regions, SYSTOLIC, "top", "gemm", "gemm_1_2")
    line = SYSTOLIC.split("\n").index("                fifo_B[i + 1, j].put(b)")
    on_put = Position(line, len("                fifo_B[i + 1, j].pu"))
    assert hover(analysis, on_put) is None  # without an active PE, nothing there
    assert hover(analysis, on_put, active=[chosen]).markdown == "PE `gemm_1_2` puts `fifo_B[2, 2]` -> `gemm_2_2`"
    # Another kernel's (or no PE's) views add nothing; a loop variable's index is said to be any.
    assert hover(analysis, on_put, active=[view(SYSTOLIC, None, kernel="gemm")]) is None
    found = view(META_FOR, "k_0_1")
    line = META_FOR.split("\n").index("                s[t].put(j)")
    assert hover(analyze(META_FOR), Position(line, 22), active=[found]).markdown == (
        "PE `k_0_1`: the index of `s` does not fold here (a loop variable): any element"
    )


def test_the_hover_says_what_the_newest_traced_run_saw():
    from allo_lsp.protocol.details import FifoRun, SimulateDetails, TracedValues
    from allo_lsp.protocol.messages import JobResult

    analysis = analyze(SYSTOLIC)
    chosen = active_pe(analysis.model.regions, SYSTOLIC, "top", "gemm", "gemm_1_2")
    line = SYSTOLIC.split("\n").index("                fifo_B[i + 1, j].put(b)")
    on_put = Position(line, len("                fifo_B[i + 1, j].pu"))

    def ran(*trace):
        return JobResult("passed", details=SimulateDetails(fifo_statistics=[FifoRun("top", {}, list(trace))]))

    values = TracedValues("fifo_B[2, 2]", "gemm_1_2", "put", 20, list(range(16)))
    other = TracedValues("fifo_B[2, 2]", "gemm_2_2", "get", 20, list(range(16)))
    head = "PE `gemm_1_2` puts `fifo_B[2, 2]` -> `gemm_2_2`"
    shown = ", ".join(f"`{v}`" for v in range(16))
    found = hover(analysis, on_put, outcomes=[ran(values)], active=[chosen]).markdown
    assert found == f"{head}\n\nLast reference run: `gemm_1_2` put 20 values: {shown} (the first 16)"
    # The newest run that kept a trace counts; one without a trace says nothing of values.
    assert hover(analysis, on_put, outcomes=[ran(values), ran(other)], active=[chosen]).markdown == (
        f"{head}\n\nLast reference run: `gemm_1_2` put nothing there"
    )
    assert hover(analysis, on_put, outcomes=[ran()], active=[chosen]).markdown == head
