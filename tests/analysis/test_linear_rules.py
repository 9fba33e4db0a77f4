"""Issue 13 item 8: the rules' work grows with the file, not with its square. The stream rules
asked, for each region, which regions call it, and answered by reading every kernel of the
file each time (2 s of a 40,000-line analysis, a quarter of a doubling's growth). Counted, not
timed: how often the analysis reads a kernel's calls of other regions, at two sizes."""

import sys

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Kernel
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import generate

HIERARCHICAL = """
import allo.dataflow as df
from allo.ir.types import int32, Stream


@df.region()
def inner{i}(A: int32[4], B: int32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def copy{i}(a: int32[4], b: int32[4]):
        for j in range(4):
            b[j] = a[j]


@df.region()
def outer{i}(A: int32[4], B: int32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def call{i}(a: int32[4], b: int32[4]):
        inner{i}(a, b)


def test_outer{i}():
    mod = df.build(outer{i}, target="vitis_hls", mode="csim")
"""


@pytest.fixture
def subregion_reads(monkeypatch):
    """How many times anything reads a kernel's `subregions` (the regions its body calls)."""
    reads = [0]
    read = object.__getattribute__

    def counted(kernel, name):
        if name == "subregions":
            reads[0] += 1
        return read(kernel, name)

    monkeypatch.setattr(Kernel, "__getattribute__", counted)
    return reads


def _reads(reads: list[int], text: str) -> int:
    reads[0] = 0
    analyze(text)
    return reads[0]


def test_a_regions_callers_are_found_without_reading_every_kernel_each_time(subregion_reads):
    small = _reads(subregion_reads, generate(500).text)
    large = _reads(subregion_reads, generate(1000).text)
    assert 0 < small and large <= 2.2 * small, (small, large)


def test_a_region_called_from_a_kernel_is_checked_for_its_callers_builds(subregion_reads):
    one = "".join(HIERARCHICAL.format(i=i) for i in range(20))
    two = "".join(HIERARCHICAL.format(i=i) for i in range(40))
    small, large = _reads(subregion_reads, one), _reads(subregion_reads, two)
    assert 0 < small and large <= 2.2 * small, (small, large)
    # The inner region's callers are the outer region whose kernel calls it, and no other.
    analysis = analyze(one)
    inner = analysis.model.module_region("inner0")
    assert [b.region.name for b in analysis.model.builds if b.region is not None] == [f"outer{i}" for i in range(20)]
    assert analysis.model.callers_of(inner) == [analysis.model.module_region("outer0")]
