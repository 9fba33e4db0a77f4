"""The runner: `python -m allo_lsp.runner REQUEST.json`, inside the user's Allo interpreter.

Stdlib and numpy only; it imports nothing of allo_lsp but `protocol`. One process runs one job
(an MLIR context cannot be created twice in a process) and writes its `JobResult` to the file the
request names before it exits. Whatever happens after that (OpenMP tearing down at exit) is the
job manager's to classify.
"""

from __future__ import annotations

import sys

from allo_lsp.runner.job import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
