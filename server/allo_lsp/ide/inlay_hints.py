"""Inlay hints: parameter names at calls of built modules, the PE count after `mapping=[...]`."""

from __future__ import annotations

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Range
from allo_lsp.ide.types import InlayHint


def inlay_hints(analysis: Analysis, window: Range | None = None) -> list[InlayHint]:
    hints = []
    for region in analysis.model.regions:
        for kernel in region.kernels:
            if kernel.mapping_range is not None and kernel.pe_count is not None:
                pes = kernel.pe_count
                hints.append(InlayHint(kernel.mapping_range.end, f"{pes} PE{'s' * (pes != 1)}", "type", padding_left=True))
    for call in analysis.model.calls:
        params = call.region.signature_for(analysis.options.allo_build)
        for i, arg in enumerate(call.args):
            if arg.keyword or arg.starred or i >= len(params) or arg.name == params[i].name:
                continue
            hints.append(InlayHint(arg.range.start, f"{params[i].name}:", "parameter", padding_right=True))
    if window is not None:
        hints = [h for h in hints if window.contains(h.position)]
    return sorted(hints, key=lambda h: h.position)
