"""A build error inside an `allo.meta_if`/`meta_elif`/`meta_else` body that no PE takes: Allo
a098603f builds each PE's function for the simulator and HLS (`_customize(unroll=True)`), and
`TypeInferer.visit_With` visits only the bodies a PE's condition takes, so the design builds; for
AIE (`unroll=False`) every body is visited. The executor's `df.build` and `check` agree."""

import numpy as np
import pytest
from allo_lsp.analysis import analyze

from tests.runner.reference_harness import HEADER, load, run, shim

_DESIGN = """
P = 2
MODE = 0


@df.region()
def top(A: uint8[4], B: uint8[4], R: int32[4]):
    @df.kernel(mapping=[P], args=[A, B, R])
    def k(a: uint8[4], b: uint8[4], r: int32[4]):
        pi = df.get_pid()
        with allo.meta_if(pi == WHICH):
            r[0] = a[0] // b[0]
        with allo.meta_elif(MODE == 1):
            for i in range(4, 0, -1):
                r[i] = 1
        with allo.meta_else():
            r[pi] = a[pi] / b[pi]
"""
_TYPE_CODES = ("ADF082", "ADF083")


def _codes(source: str) -> list[str]:
    return sorted(p.code for p in analyze(HEADER + source).problems if p.code in _TYPE_CODES)


def test_an_error_in_bodies_no_pe_takes_is_no_build_error(tmp_path):
    source = _DESIGN.replace("WHICH", "5")  # no PE has pid 5; MODE is 0
    assert _codes(source) == []
    R = np.zeros(4, np.int32)
    run(tmp_path, source, np.array([9, 8, 7, 6], np.uint8), np.full(4, 2, np.uint8), R)
    assert R.tolist() == [4, 4, 0, 0], "each PE took meta_else: divui"


def test_an_error_in_a_body_one_pe_takes_stops_the_build(tmp_path, capsys):
    source = _DESIGN.replace("WHICH", "1")
    assert _codes(source) == ["ADF082"], "PE 1 builds `//` on uint8; the meta_elif body no PE takes"
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit):
            module.df.build(module.top, target="simulator")
    assert "//" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (('df.build(top, target="aie")', ""), "a file that builds for AIE: every branch is visited"),
        (("MODE = 0", "MODE = 0\nSEL = np.int64(5).item()"), "a condition that does not fold here: judged"),
    ],
)
def test_bodies_are_judged_where_allo_visits_them_or_it_is_not_known(change, why):
    source = _DESIGN.replace("WHICH", "5")
    if change[1] == "":
        source += f"\n\ndef build():\n    return {change[0]}\n"
    else:
        source = source.replace(*change).replace("pi == 5", "pi == SEL")
    assert _codes(source) == ["ADF082", "ADF083"], why
