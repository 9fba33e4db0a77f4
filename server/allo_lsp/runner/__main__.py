"""The runner, inside the user's Allo interpreter.

The job manager starts it as `python -I -c BOOTSTRAP --result-fd N --watchdog-fd M [--warm]`
(jobs/isolation.py: isolated, so no directory an attacker can write is on `sys.path`);
`python -m allo_lsp.runner --result-fd N < request-line` is the same runner, for debugging.
Stdlib and numpy only; it imports nothing of allo_lsp but `protocol`. One process runs one job
(an MLIR context cannot be created twice in a process), writes its `JobResult` on the result
pipe as its last act and exits at once (`job.py`).
"""

from __future__ import annotations

import sys

from allo_lsp.runner.job import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
