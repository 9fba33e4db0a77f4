"""What the server does with a compiled module: check the signature, serve the MLIR view, probe.

"Show MLIR" returns the text for a read-only view (`allo-mlir:` URI). The server parses it and
reports a compiled top function whose argument order or types differ from the region's as an
error on the region; in the view, go to definition on `@producer_0` leads to kernel `producer`.
(`ide/mlir_view.py`). With `alloBuild: auto`, a one-off probe (our own tiny design, never the user's code) learns which
order the configured Allo compiles, and ADF003 follows what it found.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from urllib.parse import quote

from lsprotocol import types as lsp

from allo_lsp.analysis.model import Region
from allo_lsp.jobs.service import probe
from allo_lsp.lsp.server import AlloLanguageServer
from allo_lsp.mlir import compare_signature, kernel_of, parse_functions
from allo_lsp.protocol.messages import PASSED, JobResult

log = logging.getLogger(__name__)
MLIR_SOURCE = "allo-lsp mlir"


@dataclass
class MlirView:
    source_uri: str
    region: str
    text: str


def view_uri(path: str, region: str) -> str:
    """`allo-mlir:/abs/path/design.py/top.mlir`: the form VS Code keeps (it drops an empty `//`)."""
    return f"allo-mlir:{quote(path)}/{region}.mlir"


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
    region = _region(result.good()[0] or result.current, region_name) if result else None
    if region is not None and parsed.error is None:
        mismatch = compare_signature(parsed, region)
        diagnostics = []
        if mismatch is not None:
            convert = ls.converter(uri, doc.source)
            diagnostics.append(
                lsp.Diagnostic(range=convert.range(region.range), message=mismatch.message,
                               severity=lsp.DiagnosticSeverity.Error, source=MLIR_SOURCE, code="mlir-signature")
            )
        ls.job_diagnostics[uri] = [d for d in ls.job_diagnostics.get(uri, []) if d.source != MLIR_SOURCE] + diagnostics
        ls.publish(uri, result)
    functions = []
    for f in parsed.functions:
        mapped = kernel_of(f.name, region) if region is not None else None
        functions.append({"name": f.name, "kernel": mapped[0] if mapped else None,
                          "pe": list(mapped[1]) if mapped else None, "args": list(f.arg_types)})
    return {"mlirUri": mlir_uri, "mlir": text, "functions": functions, "parseError": parsed.error}


def _region(analysis, name: str) -> Region | None:
    return next((r for r in analysis.model.regions if r.name == name and not r.scope_path), None)


async def probe_build(ls: AlloLanguageServer, manager, config) -> None:
    """Learn once whether the configured Allo reorders top arguments; re-analyse if it matters."""
    if ls.probed_build is not None:
        return
    ls.probed_build = "probing"
    ls.probed_build = await probe(manager, config)
    found = {None: "could not tell", "legacy": "orders arguments by kernel (an older build)",
             "fixed": "keeps the declaration order (a fixed build)"}[ls.probed_build]
    ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Info, f"allo-lsp: the configured Allo {found}"))
    if ls.probed_build is not None:
        for uri in ls.open_uris():
            ls.schedule(uri, 0.0)
