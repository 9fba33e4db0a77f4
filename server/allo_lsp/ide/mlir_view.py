"""The read-only MLIR view of a region: from a symbol in it back to the source.

`@producer_0` is PE 0 of kernel `producer` (functions are matched by name: the MLIR carries no
source locations); `@top` is the region itself.
"""

from __future__ import annotations

import re

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import Range
from allo_lsp.ide.types import Symbol
from allo_lsp.mlir import kernel_of

_SYMBOL = re.compile(r"@[\w.$-]+")


def definition_in_view(text: str, line: int, column: int, analysis: Analysis, region_name: str) -> Range | None:
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    symbol = next((m.group()[1:] for m in _SYMBOL.finditer(lines[line]) if m.start() <= column <= m.end()), None)
    region = next((r for r in analysis.model.regions if r.name == region_name and not r.scope_path), None)
    if symbol is None or region is None:
        return None
    if symbol == region.name:
        return region.range
    mapped = kernel_of(symbol, region)
    kernel = region.kernel(mapped[0]) if mapped else None
    return kernel.range if kernel else None


_FUNC = re.compile(r"func\.func\s+(?:private\s+)?@([\w.$-]+)")


def view_symbols(text: str, analysis: Analysis, region_name: str) -> list[Symbol]:
    """The outline of an MLIR view: each function, named with the kernel and PE it implements."""
    region = next((r for r in analysis.model.regions if r.name == region_name and not r.scope_path), None)
    out = []
    for n, line in enumerate(text.split("\n")):
        m = _FUNC.search(line)
        if m is None:
            continue
        name = m.group(1)
        mapped = kernel_of(name, region) if region is not None else None
        if mapped:
            detail = f"kernel {mapped[0]}, PE {', '.join(map(str, mapped[1]))}"
        else:
            detail = "the top function" if region is not None and name == region.name else ""
        where = Range.of(n, m.start(1) - 1, n, m.end(1))
        out.append(Symbol(name, "kernel" if mapped else "region", detail, Range.of(n, 0, n, len(line)), where))
    return out
