import sys
from pathlib import Path

# Test helpers (`paths`, `snapshot`, ...) are imported by name from the tests directory.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "lsp"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "jobs"))
