"""The kernels' typing of an analysis (`analysis/expression_types.py`): made once per kernel and
analysis, linear in the file, in the model's positions, and never an exception."""

import sys

import allo_lsp.analysis.expression_types as expression_types
from allo_lsp.analysis import analyze
from allo_lsp.ide.hover import hover
from allo_lsp.ide.inlay_hints import inlay_hints
from allo_lsp.protocol.typing_rules import Int
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import generate

DESIGN = """
from allo.ir.types import int8, int32

M = 8


@df.region()
def top(A: int8[M], C: int32[M]):
    @df.kernel(mapping=[1], args=[A, C])
    def k(a: int8[M], c: int32[M]):
        for i in range(M):
            é = "ü"; p = a[i] * a[i]
            c[i] = p
"""


def _counting(monkeypatch) -> list[int]:
    made = [0]
    real = expression_types.KernelTypes

    def counted(*args):
        made[0] += 1
        return real(*args)

    monkeypatch.setattr(expression_types, "KernelTypes", counted)
    return made


def test_each_kernel_is_typed_once_for_the_rules_hovers_and_inlay_hints(monkeypatch):
    made = _counting(monkeypatch)
    analysis = analyze(DESIGN)
    assert made == [1]
    inlay_hints(analysis)
    hover(analysis, analysis.model.regions[0].kernels[0].typing.locals[-1].range.start)
    assert made == [1]


def test_columns_are_code_points_after_non_ascii_text():
    analysis = analyze(DESIGN)
    lines = DESIGN.split("\n")
    line = next(i for i, text in enumerate(lines) if "p = a[i]" in text)
    (p,) = [t for t in analysis.model.regions[0].kernels[0].typing.locals if t.name == "p"]
    assert (p.range.start.line, p.range.start.column) == (line, lines[line].index("p = a[i]"))
    assert p.type == Int(16)


def test_a_typer_that_fails_gives_an_empty_typing_not_an_exception(monkeypatch):
    def broken(*args):
        raise TypeError("a shape the typer does not follow")

    monkeypatch.setattr(expression_types, "KernelTypes", broken)
    analysis = analyze(DESIGN)
    assert analysis.model.regions[0].kernels[0].typing.expressions == []


def test_typing_reads_each_kernel_s_own_lines_once(monkeypatch):
    """Counted, not timed (as test_linear_rules.py): the lines parsed for the typing, at two sizes."""
    parsed = [0]
    real = expression_types._Source.function

    def counted(source):
        parsed[0] += len(source.lines)
        return real(source)

    monkeypatch.setattr(expression_types._Source, "function", counted)
    sizes = []
    for lines in (1_000, 2_000):
        parsed[0] = 0
        analyze(generate(lines).text)
        sizes.append(parsed[0])
    assert 100 < sizes[0] < 1_000  # kernels' lines only, each once
    assert sizes[1] <= 2.2 * sizes[0]
