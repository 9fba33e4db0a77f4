"""What `allo-lsp serve` imports before its first diagnostics (issue 18: a cold start within the
import floor of pygls, lsprotocol and libcst): nothing of the jobs, the reports, the MLIR readers or
numpy, which the first job, report or MLIR view brings."""

import json
import subprocess
import sys

# A server made as `serve` makes it, a document analysed and its diagnostics published (to a pipe).
SCRIPT = """
import asyncio, json, sys
from allo_lsp.lsp import create_server
from allo_lsp.ide.document import DocumentAnalysis
server = create_server()
result = DocumentAnalysis.build(open(sys.argv[1]).read(), 1, server.options())
assert result.problems, "the design has problems to show"
heavy = ("allo_lsp.jobs.", "allo_lsp.reports.", "allo_lsp.mlir.", "allo_lsp.runner", "numpy")
print(json.dumps(sorted(m for m in sys.modules if m.startswith(heavy))))
"""


def test_serve_imports_no_job_report_mlir_or_numpy_module_before_its_first_diagnostics():
    from paths import EXAMPLES

    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(EXAMPLES / "pitfall_bare_scalar.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # The build probe's record (what it found, a dataclass) is made at start; its job is not run.
    assert json.loads(out.stdout) == ["allo_lsp.jobs.build_probe"]


def test_the_lazy_packages_still_give_every_name():
    from allo_lsp import mlir, reports

    for package in (mlir, reports):
        assert all(getattr(package, name) is not None for name in package.__all__)
