"""A hostile design cannot make the analysis' folding (analysis/evaluate.py, with
protocol/constant_fold.py's bounds, the graph's) exhaust the server's memory or time: a constant
past a bound is unknown, and the constants within the bounds still fold."""

import time

from allo_lsp.analysis import analyze

HOSTILE = """\
import allo
from allo.ir.types import int32
import allo.dataflow as df

WIDE = "x" * 10 ** 12
MANY = (1,) * 10 ** 12
HUGE = 2 ** 10 ** 10
SHIFTED = 1 << 10 ** 9
PADDED = "%0999999999d" % 1
NESTED = (((1,) * 64,) * 64,) * 64
SAME = NESTED == NESTED
BIG = 0x{hex} * 0x{hex}
N = 4 if WIDE == MANY or SAME else 8
P = (2 ** 4 if 0 < 1 <= 1 else 0) + min(1, 2)


@df.region()
def top(A: int32[HUGE], B: int32[P], C: int32[N], D: int32[BIG]):
    @df.kernel(mapping=[1], args=[A, B])
    def k(local_A: int32[HUGE], local_B: int32[P]):
        local_B[0] = local_A[SHIFTED]
""".replace("{hex}", "f" * 100_000)


def test_a_design_of_hostile_constants_is_analysed_promptly_with_nothing_past_a_bound_folded():
    start = time.monotonic()
    analysis = analyze(HOSTILE)
    assert time.monotonic() - start < 10
    params = {p.name: p.type.shape for p in analysis.model.regions[0].params}
    assert params == {"A": (None,), "B": (17,), "C": (None,), "D": (None,)}
