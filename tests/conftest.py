import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# Test helpers (`paths`, `snapshot`, ...) are imported by name from the tests directory.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "lsp"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "jobs"))

# What servers and jobs keep for a workspace (cluster jobs, the synthesis reports the report view
# compares) goes to $XDG_STATE_HOME when no editor names a storage: a directory of this run's, so
# that no test writes to the user's home (synthesis-reports.json files were left there).
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="allo-lsp-tests-state-")
atexit.register(shutil.rmtree, os.environ["XDG_STATE_HOME"], ignore_errors=True)
