from pathlib import Path

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Region
from allo_lsp.mlir import bindings

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def mlir_bindings():
    """Skips the test when no MLIR Python bindings are importable (`pip install torch-mlir`)."""
    found = bindings.load_bindings()
    if found is None:
        pytest.skip(f"no MLIR Python bindings importable (tried {', '.join(bindings.CANDIDATES)})")
    return found


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def region_of(source: str) -> Region:
    return analyze(source).model.regions[0]
