"""What the server does with a compiled module: check the signature, serve the MLIR view, probe.

"Show MLIR" returns the text for a read-only view (`allo-mlir:` URI); the check and the view's
navigation are `ide/mlir_view.py`. With `alloBuild: auto`, a one-off probe (our own tiny design,
never the user's code) learns which order the configured Allo compiles, and ADF003 follows what
it found.
"""

from __future__ import annotations

import asyncio

from allo_lsp.ide.mlir_view import MLIR_SOURCE, MlirView, signature_problems, view_functions, view_uri
from allo_lsp.jobs.service import probe
from allo_lsp.lsp import convert
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.mlir import parse_functions
from allo_lsp.protocol.messages import PASSED, JobResult

_PROBED = {None: "could not tell", "legacy": "orders arguments by kernel (an older build)",
           "fixed": "keeps the declaration order (a fixed build)"}


async def after_mlir_job(ls: AlloLanguageServer, uri: str, region_name: str, outcome: JobResult) -> dict:
    """Check the compiled signature against the region and register the view. Returns what the
    client needs to open the view."""
    text = outcome.details.get("artifact_text")
    if outcome.status != PASSED or text is None:
        return {}
    doc = ls.document(uri)
    mlir_uri = view_uri(doc.path or uri, region_name)
    ls.mlir_views[mlir_uri] = MlirView(uri, region_name, text)
    parsed = await asyncio.to_thread(parse_functions, text)
    result = ls.analyses.get(uri)
    region = (result.good()[0] or result.current).model.module_region(region_name) if result else None
    if region is not None and parsed.error is None:
        converter = ls.converter(uri, doc.source)
        shown = [converter.diagnostic(p, MLIR_SOURCE) for p in signature_problems(parsed, region)]
        ls.job_diagnostics[uri] = [d for d in ls.job_diagnostics.get(uri, []) if d.source != MLIR_SOURCE] + shown
        ls.publish(uri, result)
    return {"mlirUri": mlir_uri, "mlir": text, "functions": view_functions(parsed, region), "parseError": parsed.error}


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
