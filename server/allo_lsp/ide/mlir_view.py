"""The read-only MLIR view of a region: from a symbol in it back to the source, and the check of
the compiled top function against the region.

`@producer_0` is PE 0 of kernel `producer` (functions are matched by name: the MLIR carries no
source locations); `@top` is the region itself. A compiled top function whose argument order or
types differ from the region's is an error on the region. The module is read by the runner, with
the Allo that made it (`MlirDetails.compiled`), else by the server's own bindings; either way the
analysis is then checked against it (`mlir/differential.py`), and where they disagree it is
allo-lsp's bug, said as a warning on the region.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from allo_lsp import mlir  # its modules on first use: not before the first diagnostics
from allo_lsp.analysis import Analysis
from allo_lsp.analysis.model import FileModel, Range, Region
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.ide.types import Symbol
from allo_lsp.protocol.details import Details
from allo_lsp.protocol.messages import PASSED, JobResult

MLIR_SOURCE = "allo-lsp mlir"
SIGNATURE_CODE = "mlir-signature"
ANALYSIS_CODE = "mlir-analysis"  # the analysis disagrees with the compiled module: our bug
_SCHEME = "allo-mlir:"


@dataclass
class MlirView:
    source_uri: str
    region: str
    text: str


def view_uri(path: str, region: str) -> str:
    """`allo-mlir:/abs/path/design.py/top.mlir`: the form VS Code keeps (it drops an empty `//`)."""
    return f"{_SCHEME}{quote(path)}/{region}.mlir"


def is_view(uri: str) -> bool:
    """An MLIR view: opened in the editor too, but not Python (not analysed)."""
    return uri.startswith(_SCHEME)


def signature_problems(parsed, region: Region) -> list[Problem]:
    """The compiled top function (`parsed`: `mlir.parse_functions`) against the region, then the
    analysis against the module (not when the module's top function is another region's or another
    text's: what the analysis expects of this one says nothing of that module)."""
    mismatch = mlir.compare_signature(parsed, region)
    problems = [] if mismatch is None else [Problem(SIGNATURE_CODE, Severity.ERROR, region.range, mismatch.message)]
    if mismatch is None or mismatch.legacy_order:
        for found in mlir.disagreements(parsed, region, declaration_order=mismatch is None):
            problems.append(Problem(ANALYSIS_CODE, Severity.WARNING, region.range, found.message))
    return problems


@dataclass(frozen=True)
class Compiled:
    """A compiled module as the editor shows it: its MLIR text, the problems of its top function
    and of the analysis against it, its functions for the client's view, and the bindings that read
    it (`allo._mlir.ir` in the job's Allo, or the server's own)."""

    text: str
    problems: list[Problem]
    functions: list[dict]
    parse_error: str | None
    bindings: str | None = None


def compiled(text: str, region: Region | None, details: Details | None = None) -> Compiled:
    """The MLIR text of a region's compiled module (`region`: None if it is gone from the file),
    as the job's runner read it (`details`: the job's), else as the server's bindings read it."""
    parsed = mlir.parse_module(text, details)
    problems = signature_problems(parsed, region) if region is not None and parsed.error is None else []
    return Compiled(text, problems, view_functions(parsed, region), parsed.error, parsed.bindings)


def compiled_by(outcome: JobResult, model: FileModel, region: str) -> Compiled | None:
    """The module an MLIR job compiled, checked against `region` of the text it ran (`model`);
    None unless it passed. Slow (the MLIR parsed when the runner could not): off the event loop."""
    text = outcome.details.artifact_text
    if outcome.status != PASSED or text is None:
        return None
    return compiled(text, model.module_region(region), outcome.details)


def view_functions(parsed, region: Region | None) -> list[dict]:
    """The compiled functions as the client lists them: name, kernel and PE, argument types."""
    functions = []
    for f in parsed.functions:
        mapped = mlir.kernel_of(f.name, region) if region is not None else None
        functions.append(
            {
                "name": f.name,
                "kernel": mapped[0] if mapped else None,
                "pe": list(mapped[1]) if mapped else None,
                "args": list(f.arg_types),
            }
        )
    return functions


_SYMBOL = re.compile(r"@[\w.$-]+")


def definition_in_view(text: str, line: int, column: int, analysis: Analysis, region_name: str) -> Range | None:
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    symbol = next((m.group()[1:] for m in _SYMBOL.finditer(lines[line]) if m.start() <= column <= m.end()), None)
    region = analysis.model.module_region(region_name)
    if symbol is None or region is None:
        return None
    if symbol == region.name:
        return region.range
    mapped = mlir.kernel_of(symbol, region)
    kernel = region.kernel(mapped[0]) if mapped else None
    return kernel.range if kernel else None


_FUNC = re.compile(r"func\.func\s+(?:private\s+)?@([\w.$-]+)")


def view_symbols(text: str, analysis: Analysis, region_name: str) -> list[Symbol]:
    """The outline of an MLIR view: each function, named with the kernel and PE it implements."""
    region = analysis.model.module_region(region_name)
    out = []
    for n, line in enumerate(text.split("\n")):
        m = _FUNC.search(line)
        if m is None:
            continue
        name = m.group(1)
        mapped = mlir.kernel_of(name, region) if region is not None else None
        if mapped:
            detail = f"kernel {mapped[0]}, PE {', '.join(map(str, mapped[1]))}"
        else:
            detail = "the top function" if region is not None and name == region.name else ""
        where = Range.of(n, m.start(1) - 1, n, m.end(1))
        out.append(Symbol(name, "kernel" if mapped else "region", detail, Range.of(n, 0, n, len(line)), where))
    return out
