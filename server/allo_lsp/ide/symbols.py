"""Document symbols: each region with its kernels and streams."""

from __future__ import annotations

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Range
from allo_lsp.ide.types import Symbol


def document_symbols(analysis: Analysis) -> list[Symbol]:
    out = []
    for region in analysis.model.regions:
        children = [
            Symbol(
                k.name,
                "kernel",
                f"mapping [{', '.join('?' if m is None else str(m) for m in k.mapping or ())}]"
                f" · {k.pe_count if k.pe_count is not None else '?'} PE{'' if k.pe_count == 1 else 's'}",
                _span(k.decorator_range, k.body_range or k.range),
                k.range,
            )
            for k in region.kernels
        ]
        children += [
            Symbol(
                s.name,
                "stream",
                s.type.resolved if s.type else s.annotation,
                _span(s.range, s.annotation_range or s.range),
                s.range,
            )
            for s in region.streams
        ]
        children.sort(key=lambda c: c.range.start)
        signature = f"({', '.join(p.name for p in region.params)})"
        out.append(
            Symbol(
                region.name,
                "region",
                signature,
                _span(region.decorator_range, region.def_range),
                region.range,
                tuple(children),
            )
        )
    return out


def _span(first: Range, last: Range) -> Range:
    return Range(min(first.start, last.start), max(first.end, last.end))
