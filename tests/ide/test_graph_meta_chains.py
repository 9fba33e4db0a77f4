"""The graph's PE roles pair `meta_if`/`meta_elif`/`meta_else` as Allo does (`protocol/meta_chains.py`,
shared with the analysis and the executor): one stack of open chains per meta body, a `meta_for`
body and plain loops on their enclosing level, an unmatched branch building no PE."""

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.ide.graph import region_graph


def roles(text: str, kernel: str = "k") -> dict[tuple[int, ...], str | None]:
    graph = region_graph(analyze(text).model.regions, text, "top", True)
    return {n.pe: n.role for n in graph.nodes if n.kind == "pe" and n.kernel == kernel}


def stream_pairs(text: str, stream: str) -> set[tuple[str | None, str | None]]:
    graph = region_graph(analyze(text).model.regions, text, "top", True)
    return {(e.source, e.target) for e in graph.edges if e.kind == "stream" and e.stream == stream}


def design(body: str, prelude: str = "") -> str:
    """A 2 x 2 kernel `k` with `body` (indented 8) after `i, j = df.get_pid()`, and a sink
    for its stream `s[2]`."""
    return f"""\
import allo
{prelude}
@df.region()
def top(A: int32[4]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping=[2, 2], args=[A])
    def k(local_A: int32[4]):
        i, j = df.get_pid()
{body}
    @df.kernel(mapping=[1], args=[A])
    def sink(local_A: int32[4]):
        local_A[0] = s[0].get()
"""


STACKED = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        with allo.meta_if(j == 0):
            local_A[1] = 1
        with allo.meta_else():
            local_A[2] = 1
        with allo.meta_else():
            local_A[3] = 1
""")


def test_an_else_after_a_closed_chain_pairs_with_the_meta_if_still_open_before_it():
    # The first meta_else closes `j == 0`'s chain; the second closes `i == 0`'s.
    assert roles(STACKED) == {
        (0, 0): "meta_if(i == 0) / meta_if(j == 0)",
        (0, 1): "meta_if(i == 0) / meta_else()",
        (1, 0): "meta_if(j == 0) / meta_else()",
        (1, 1): "meta_else() / meta_else()",
    }


UNMATCHED_ELIF = design("""\
        with allo.meta_elif(i == 0):
            s[j].put(1)
""")

ELSE_AFTER_ELSE = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        with allo.meta_else():
            local_A[1] = 1
        with allo.meta_else():
            s[j].put(1)
""")


ELSE_IN_UNROLLED_META_FOR = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        with allo.meta_for(2) as t:
            with allo.meta_else():
                s[j].put(1)
""")


@pytest.mark.parametrize(
    "text",
    [UNMATCHED_ELIF, ELSE_AFTER_ELSE, ELSE_IN_UNROLLED_META_FOR],
    ids=["elif_first", "else_after_else", "else_in_second_iteration"],
)
def test_a_branch_with_no_open_meta_if_builds_no_pe_so_no_role_and_no_placed_use(text):
    # Allo stops at "Unmatched allo.meta_elif()" / "meta_else()": which PE puts is not known.
    assert set(roles(text).values()) == {None}
    assert stream_pairs(text, "s") == {("k", "sink_0")}


ELSE_IN_META_FOR = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        with allo.meta_for(1) as t:
            with allo.meta_else():
                s[j].put(1)
""")

ELSE_IN_LOOP = design("""\
        with allo.meta_if(i == 0):
            local_A[0] = 1
        for t in range(2):
            with allo.meta_else():
                s[j].put(1)
""")


@pytest.mark.parametrize("text", [ELSE_IN_META_FOR, ELSE_IN_LOOP], ids=["meta_for", "for"])
def test_a_meta_for_body_and_a_loop_body_share_the_level_of_the_chain_around_them(text):
    expected = {(0, 0): "meta_if(i == 0)", (0, 1): "meta_if(i == 0)", (1, 0): "meta_else()", (1, 1): "meta_else()"}
    assert roles(text) == expected
    assert stream_pairs(text, "s") == {("k_1_0", "sink_0"), ("k_1_1", None)}


SHADOWED = design(
    """\
        with allo.meta_for(2) as t:
            with allo.meta_if(t == 0):
                s[j].put(t)
""",
    prelude="t = 0\n",
)


def test_a_meta_for_variable_hides_the_module_constant_of_its_name():
    # Allo binds `t` to 0 then 1: the branch is taken in one iteration of two, not by the
    # module's `t = 0`.
    assert set(roles(SHADOWED).values()) == {None}
    assert stream_pairs(SHADOWED, "s") == {("k", "sink_0")}
