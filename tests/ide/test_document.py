"""The last good analysis, moved to the text being edited."""

from allo_lsp.analysis import Options
from allo_lsp.analysis.model import Position
from allo_lsp.ide.document import DocumentAnalysis, LineShift
from cursor import HEADER

REGION = (
    HEADER
    + """\
@df.region()
def top(A: int32[4], n: int32):
    @df.kernel(mapping=[1], args=[A])
    def k(local_A: int32[4]):
        local_A[0] = 1
"""
)


def codes(doc):
    return [(p.code, p.range.start.line) for p in doc.problems]


def test_line_shift_maps_shared_lines_and_drops_edited_ones():
    shift = LineShift.between("a\nb\nc\nd\ne", "x\na\nb\nC\nd\ne\nf")
    assert [shift.forward(i) for i in range(5)] == [1, 2, None, 4, 5]
    assert [shift.backward(i) for i in range(7)] == [None, 0, 1, None, 3, 4, None]


def test_syntax_error_keeps_last_good_problems_in_place():
    good = DocumentAnalysis.build(REGION, 1, Options())
    assert codes(good) == [("ADF006", 6), ("ADF001", 6)]
    broken_text = "\n" + REGION.replace("local_A[0] = 1", "local_A[0] = (1")
    broken = DocumentAnalysis.build(broken_text, 2, Options(), good)
    assert codes(broken) == [("ADF006", 7), ("ADF001", 7), ("ADF900", 10)]
    analysis, _, shift = broken.view(broken_text)
    assert analysis is good.current and shift.position_backward(Position(7, 10)) == Position(6, 10)
    # The chain goes on from the last good text while errors persist.
    worse = DocumentAnalysis.build(broken_text + "\n)(", 3, Options(), broken)
    assert ("ADF001", 7) in codes(worse)


def test_first_analysis_with_a_syntax_error_has_no_last_good():
    doc = DocumentAnalysis.build(REGION + "(", 1, Options())
    assert doc.last_good is None
    assert ("ADF001", 6) in codes(doc)  # the partial analysis still sees the rest
