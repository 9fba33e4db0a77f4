"""A hostile design cannot make the graph's folding (ide/graph_fold.py, with protocol/constant_fold.py's
bounds) exhaust the server's memory or time: what is past a bound does not fold."""

import time

from allo_lsp.analysis import analyze
from allo_lsp.ide.graph import region_graph

HOSTILE = """\
import allo

WIDE = "x" * 10 ** 12
MANY = (1,) * 10 ** 12
HUGE = 2 ** 10 ** 10

@df.region()
def top(A: int32[4]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping=[2], args=[A])
    def k(local_A: int32[4]):
        i = df.get_pid()
        pad = "%0999999999d" % i
        with allo.meta_if(WIDE == 'x' * 10 ** 12 or i == 0):
            s[i].put(1)
        with allo.meta_elif(10 ** 12 * ("a", "b") == MANY):
            s[(1 << 10 ** 9) - i].put(2)
        with allo.meta_else():
            s[i * HUGE].put(3)

    @df.kernel(mapping=[1], args=[A])
    def sink(local_A: int32[4]):
        local_A[0] = s[0].get()
"""


def test_a_design_of_hostile_constants_gives_its_graph_promptly_with_nothing_past_a_bound_folded():
    start = time.monotonic()
    graph = region_graph(analyze(HOSTILE).model.regions, HOSTILE, "top", True)
    assert time.monotonic() - start < 10
    # PE 0 takes the meta_if (`or i == 0` decides it); PE 1's conditions do not fold.
    roles = {n.pe: n.role for n in graph.nodes if n.kind == "pe" and n.kernel == "k"}
    assert roles == {(0,): "meta_if(WIDE == 'x' * 10 ** 12 or i == 0)", (1,): None}
    pairs = {(e.source, e.target) for e in graph.edges if e.kind == "stream" and e.stream == "s"}
    assert pairs == {("k_0", "sink_0"), ("k", "sink_0")}
