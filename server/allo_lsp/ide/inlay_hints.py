"""Inlay hints: parameter names at calls of built modules, the PE count after `mapping=[...]`, the
Allo type of each untyped local of a kernel at its first binding."""

from __future__ import annotations

from collections.abc import Mapping

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.expression_types import type_name
from allo_lsp.analysis.model import Range
from allo_lsp.ide.synthesis import kernel_hint
from allo_lsp.ide.types import InlayHint


def inlay_hints(
    analysis: Analysis, window: Range | None = None, reports: Mapping[str, dict] | None = None
) -> list[InlayHint]:
    """The hints in `window`, then each kernel's worst-case cycles from its region's newest
    synthesis report (`reports`: region name -> report)."""
    hints = _analysis_hints(analysis, window)
    for region in analysis.model.regions:
        report = (reports or {}).get(region.name)
        for kernel in region.kernels if report else ():
            label = kernel_hint(report, kernel)
            if label and (window is None or window.contains(kernel.range.end)):
                hints.append(InlayHint(kernel.range.end, label, "type", padding_left=True))
    return hints


def _analysis_hints(analysis: Analysis, window: Range | None) -> list[InlayHint]:
    hints = []
    for region in analysis.model.regions:
        for kernel in region.kernels:
            if kernel.mapping_range is not None and kernel.pe_count is not None:
                pes = kernel.pe_count
                hints.append(
                    InlayHint(kernel.mapping_range.end, f"{pes} PE{'s' * (pes != 1)}", "type", padding_left=True)
                )
            for local in kernel.typing.locals if kernel.typing else ():  # Allo's type of an untyped local
                hints.append(InlayHint(local.range.end, f": {type_name(local.type)}", "type"))
    for call in analysis.model.calls:
        params = call.region.signature_for(analysis.options.allo_build)
        for i, arg in enumerate(call.args):
            if arg.keyword or arg.starred or i >= len(params) or arg.name == params[i].name:
                continue
            hints.append(InlayHint(arg.range.start, f"{params[i].name}:", "parameter", padding_right=True))
    if window is not None:
        hints = [h for h in hints if window.contains(h.position)]
    return sorted(hints, key=lambda h: h.position)
