"""Where things are, for every test module."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
# Snapshots are rewritten instead of compared when this is set: review the diff before committing.
UPDATE_SNAPSHOTS = os.environ.get("UPDATE_SNAPSHOTS") == "1"
STANDIN = ROOT / "tests" / "standin"  # the stand-in `allo` package (tests/standin/README.md)
