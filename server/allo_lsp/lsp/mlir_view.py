"""What the server does with a compiled module: check the signature, serve the MLIR view, probe.

"Show MLIR" returns the text for a read-only view (`allo-mlir:` URI); the check and the view's
navigation are `ide/mlir_view.py`. With `alloBuild: auto`, a one-off probe (our own tiny design,
never the user's code) learns which order the configured Allo compiles, and ADF003 follows what
it found.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types as lsp

from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.log_lines import probe_lines
from allo_lsp.ide.mlir_view import MLIR_SOURCE, MlirView, compiled, definition_in_view, view_symbols, view_uri
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import MLIR, PASSED, JobResult


async def after_mlir_job(
    ls: AlloLanguageServer, uri: str, name: str, model: FileModel, outcome: JobResult, ran: str
) -> dict:
    """Check the compiled signature against region `name` of the text the job `ran` (`model`),
    and register the view. Returns what the client needs to open the view."""
    text = outcome.details.artifact_text
    if outcome.status != PASSED or text is None:
        return {}
    mlir_uri = view_uri(ls.document(uri).path or uri, name)
    ls.mlir_views[mlir_uri] = MlirView(uri, name, text)
    found = await asyncio.to_thread(compiled, text, model.module_region(name))
    ls.outcomes_of(uri).add_problems((name, MLIR), MLIR_SOURCE, found.problems, ran)
    result = ls.analyses.get(uri)
    if result is not None and ls.is_open(uri):
        ls.publish(uri, result)
    return {"mlirUri": mlir_uri, "mlir": text, "functions": found.functions, "parseError": found.parse_error}


def mlir_definition(ls: AlloLanguageServer, mlir: MlirView, position: lsp.Position) -> lsp.Location | None:
    """From a symbol of an MLIR view to the kernel or region of its source."""
    if (result := ls.analyses.get(mlir.source_uri)) is None:
        return None
    analysis = result.good()[0] or result.current
    target = definition_in_view(mlir.text, position.line, position.character, analysis, mlir.region)
    return ls.converter(mlir.source_uri, result.text).location(mlir.source_uri, target) if target else None


def mlir_symbols(ls: AlloLanguageServer, mlir: MlirView, uri: str) -> list[lsp.DocumentSymbol]:
    """The outline of an MLIR view: its functions by what they implement."""
    if (result := ls.analyses.get(mlir.source_uri)) is None:
        return []
    symbols = view_symbols(mlir.text, result.good()[0] or result.current, mlir.region)
    return [ls.converter(uri, mlir.text).symbol(s) for s in symbols]


async def probe_build(ls: AlloLanguageServer, manager, config) -> None:
    """Learn once per settings whether the configured Allo reorders top arguments (`jobs/build_probe.py`)."""
    probe = ls.probe
    if (outcome := await probe.run(manager, config)) is None or probe is not ls.probe:
        return  # probed already, or the settings changed meanwhile (a job of theirs probes again)
    ls.log(*probe_lines(probe.interpreter(), probe.found, outcome))
    if probe.found is not None:
        for uri in ls.open_uris():
            ls.schedule(uri, 0.0)
