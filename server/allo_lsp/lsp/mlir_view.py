"""What the server does with a compiled module: check the signature, serve the MLIR view, probe.

"Show MLIR" returns the text for a read-only view (`allo-mlir:` URI); the check and the view's
navigation are `ide/mlir_view.py`. With `alloBuild: auto`, a one-off probe (our own tiny design,
never the user's code) learns which order the configured Allo compiles, and ADF003 follows what
it found.
"""

from __future__ import annotations

import asyncio

from allo_lsp.analysis.model import FileModel
from allo_lsp.ide.mlir_view import MLIR_SOURCE, MlirView, compiled, view_uri
from allo_lsp.jobs.service import probe
from allo_lsp.lsp import convert
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.protocol.messages import MLIR, PASSED, JobResult

_PROBED = {None: "could not tell", "legacy": "orders arguments by kernel (an older build)",
           "fixed": "keeps the declaration order (a fixed build)"}


async def after_mlir_job(ls: AlloLanguageServer, uri: str, name: str, model: FileModel, outcome: JobResult,
                         ran: str) -> dict:
    """Check the compiled signature against region `name` of the text the job `ran` (`model`),
    and register the view. Returns what the client needs to open the view."""
    text = outcome.details.get("artifact_text")
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


async def probe_build(ls: AlloLanguageServer, manager, config) -> None:
    """Learn once whether the configured Allo reorders top arguments; re-analyse if it matters."""
    if ls.probed_build is not None:
        return
    ls.probed_build = "probing"
    ls.probed_build = await probe(manager, config)
    ls.window_log_message(convert.log_message(f"allo-lsp: the configured Allo {_PROBED[ls.probed_build]}"))
    if ls.probed_build is not None:
        for uri in ls.open_uris():
            ls.schedule(uri, 0.0)
