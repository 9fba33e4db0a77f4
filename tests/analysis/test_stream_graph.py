"""The kernels' stream graph the stream rules read (ADF023, ADF027): edges, cycles, and the
producers-first order the ADF023 fix writes."""

from textwrap import dedent

from allo_lsp.analysis import analyze
from allo_lsp.analysis.rules.stream_graph import StreamGraph

HEADER = """\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df

M = 4
P = 2
"""


def graph(body: str) -> StreamGraph:
    (region,) = analyze(HEADER + dedent(body)).model.regions
    return StreamGraph.of(region)


def test_a_relay_chain_over_one_stream_array_has_no_cycle():
    # `relay` gets and puts elements of `fifo`; `head` only puts, `tail` only gets: a direction.
    g = graph(
        """
        @df.region()
        def top():
            fifo: Stream[int32, 2][P + 1]

            @df.kernel(mapping=[1])
            def tail():
                v: int32 = fifo[P].get()

            @df.kernel(mapping=[P])
            def relay():
                p = df.get_pid()
                fifo[p + 1].put(fifo[p].get())

            @df.kernel(mapping=[1])
            def head():
                fifo[0].put(1)
        """
    )
    assert set(g.edges) == {("relay", "tail"), ("head", "relay"), ("head", "tail")}
    assert all(len(c) == 1 for c in g.components())
    assert g.producers_first() == ["head", "relay", "tail"]


def test_two_relays_of_one_stream_array_are_not_linked_either_way():
    # Which of them feeds the other depends on each PE's indices, which the graph does not fold.
    g = graph(
        """
        @df.region()
        def top():
            fifo: Stream[int32, 2][3]

            @df.kernel(mapping=[1])
            def first():
                fifo[1].put(fifo[0].get())

            @df.kernel(mapping=[1])
            def second():
                fifo[2].put(fifo[1].get())
        """
    )
    assert g.edges == {}


def test_a_cycle_moves_as_one_block_before_its_consumer():
    g = graph(
        """
        @df.region()
        def top():
            fwd: Stream[int32, 2]
            bwd: Stream[int32, 2]
            out: Stream[int32, 2]

            @df.kernel(mapping=[1])
            def sink():
                v: int32 = out.get()

            @df.kernel(mapping=[1])
            def pong():
                v: int32 = fwd.get()
                bwd.put(v)
                out.put(v)

            @df.kernel(mapping=[1])
            def ping():
                fwd.put(1)
                w: int32 = bwd.get()
        """
    )
    assert sorted(map(sorted, g.components())) == [["ping", "pong"], ["sink"]]
    assert g.producers_first() == ["pong", "ping", "sink"]


def test_a_long_chain_defined_backwards_is_ordered_without_recursion():
    # Deeper than Python's recursion limit: the components and the order walk without recursing.
    n = 1500
    streams = "\n".join(f"    s{i}: Stream[int32, 2]" for i in range(n))
    kernels = "\n".join(
        f"    @df.kernel(mapping=[1])\n    def k{i}():\n        s{i}.put(s{i - 1}.get())\n" for i in range(n - 1, 0, -1)
    )
    text = f"@df.region()\ndef top():\n{streams}\n\n    @df.kernel(mapping=[1])\n    def k0():\n        s0.put(1)\n\n{kernels}"
    g = graph(text)
    assert len(g.components()) == n
    assert g.producers_first() == ["k0"] + [f"k{i}" for i in range(1, n)]


def test_a_use_by_a_kernel_the_region_does_not_list_links_nothing():
    # A model made of broken code may hold a use whose kernel is not among the region's: the
    # graph leaves it out instead of raising.
    text = """
@df.region()
def top():
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1])
    def load():
        pipe.put(1)

    @df.kernel(mapping=[1])
    def store():
        v: int32 = pipe.get()
"""
    (region,) = analyze(HEADER + text).model.regions
    region.kernels = [k for k in region.kernels if k.name != "store"]
    g = StreamGraph.of(region)
    assert g.edges == {} and g.components() == [["load"]] and g.producers_first() == ["load"]
