"""The executor pairs meta branches across a `meta_for` as Allo does: Allo unrolls it without
opening a meta level, so its body's branches pair with the chains around it (protocol/meta_chains.py,
as the analysis and the graph pair them)."""

import numpy as np

from tests.runner.reference_harness import run

ELSE_IN_META_FOR = """
@df.region()
def top(C: int32[2]):
    @df.kernel(mapping=[2], args=[C])
    def k(local_C: int32[2]):
        i = df.get_pid()
        with allo.meta_if(i == 0):
            local_C[i] = 1
        with allo.meta_for(1) as t:
            with allo.meta_else():
                local_C[i] = 2 + t
"""

ELSE_AFTER_META_FOR = """
@df.region()
def top(C: int32[2]):
    @df.kernel(mapping=[2], args=[C])
    def k(local_C: int32[2]):
        i = df.get_pid()
        with allo.meta_for(2) as t:
            with allo.meta_if(i == t):
                local_C[i] += 10
        with allo.meta_else():
            local_C[i] += 1
"""


def test_a_meta_else_in_a_meta_for_body_takes_the_meta_if_before_the_loop(tmp_path):
    C = np.zeros(2, np.int32)
    run(tmp_path, ELSE_IN_META_FOR, C)
    assert C.tolist() == [1, 2]


def test_a_meta_else_after_a_meta_for_takes_the_chain_of_its_last_copy(tmp_path):
    # Allo's copies push `i == 0` then `i == 1`; the meta_else closes `i == 1`'s chain.
    C = np.zeros(2, np.int32)
    run(tmp_path, ELSE_AFTER_META_FOR, C)
    assert C.tolist() == [11, 10]
