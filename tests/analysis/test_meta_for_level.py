"""ADF030 pairs meta branches as Allo does across a `meta_for`: Allo unrolls it without opening a
meta level (`with_scope_level` is not raised), so its body's branches pair with the chains around
it, as the graph and protocol/meta_chains.py pair them."""

from allo_lsp.analysis import analyze

KERNEL = """\
import allo
from allo.ir.types import int32
import allo.dataflow as df


@df.region()
def top(A: int32[4]):
    @df.kernel(mapping=[2], args=[A])
    def k(local_A: int32[4]):
        p = df.get_pid()
{body}
"""


def unmatched(body: str) -> list[int]:
    """0-based lines of ADF030's unmatched-branch findings."""
    text = KERNEL.format(body=body)
    return [p.range.start.line for p in analyze(text).problems if p.code == "ADF030"]


def test_a_meta_else_in_a_meta_for_body_takes_the_meta_if_before_the_loop():
    assert (
        unmatched("""\
        with allo.meta_if(p == 0):
            local_A[0] = 1
        with allo.meta_for(1) as t:
            with allo.meta_else():
                local_A[t] = 2
""")
        == []
    )


def test_in_a_second_iteration_that_meta_else_finds_the_chain_closed():
    # Allo unrolls the loop (infer.py visits the body once per iteration, the meta_if stack
    # untouched between them): the first copy closes the chain, the second is unmatched.
    assert unmatched("""\
        with allo.meta_if(p == 0):
            local_A[0] = 1
        with allo.meta_for(2) as t:
            with allo.meta_else():
                local_A[t] = 2
""") == [13]


def test_a_meta_else_after_a_meta_for_takes_the_meta_if_left_open_in_its_body():
    assert (
        unmatched("""\
        with allo.meta_for(2) as t:
            with allo.meta_if(p == t):
                local_A[t] = 1
        with allo.meta_else():
            local_A[3] = 2
""")
        == []
    )
